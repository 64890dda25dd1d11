"""Builds Spark's Bloom filter with a real Spark job and writes its bytes.

A local Spark session (pyspark, 4.1 or later) reads the keys as a DataFrame of 8 partitions
and builds the filter with `DataFrame.stat.bloomFilter`: each partition builds its own
filter and Spark merges them (`BloomFilter.mergeInPlace`), as a distributed job does across
machines. The bytes are Spark's `BloomFilter.writeTo`, written to
`vectors/spark_job_8_partitions.bin`; bloom-datafusion's tests probe them with
`spark_might_contain` and check that every key is found.

Keys: k = i * 7919 - 1000000 for i in 0..KEYS (BIGINT), written again by the test.

Run: python3 spark_job.py [OUT_DIR]
"""

import os
import sys

from pyspark.sql import SparkSession

KEYS = 5000
EXPECTED_ITEMS = 5000
FPP = 0.03
PARTITIONS = 8


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "vectors")
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bloom-family spark job vector")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    try:
        frame = spark.range(0, KEYS, numPartitions=PARTITIONS).selectExpr(
            "id * 7919 - 1000000 AS k"
        )
        assert frame.rdd.getNumPartitions() == PARTITIONS
        bloom = frame._jdf.stat().bloomFilter("k", EXPECTED_ITEMS, FPP)
        stream = spark._jvm.java.io.ByteArrayOutputStream()
        bloom.writeTo(stream)
        data = bytes(stream.toByteArray())
    finally:
        spark.stop()
    path = os.path.join(out_dir, "spark_job_8_partitions.bin")
    with open(path, "wb") as f:
        f.write(data)
    print(f"{path}: {len(data)} bytes, Spark {spark.version}")


if __name__ == "__main__":
    main()
