#!/usr/bin/env bash
# Regenerates the JVM golden vectors in tests/golden/jvm/vectors/ with the real engines:
# Spark's sketch BloomFilter from the jar pyspark ships (`pip install pyspark`, 4.1 or later
# for V2), Guava from Debian's libguava-java (`apt-get install libguava-java`). Each half runs
# when its jar is found (SPARK_SKETCH_JAR and GUAVA_JAR override the search). The manifests
# (spark.txt, guava.txt) hold, per vector: name, version (0 for Guava), key kind, keys
# inserted, fpp, seed, puts that changed bits, expectedFpp, probes, positive answers, the
# FNV-1a digest of the answers, and for Guava approximateElementCount.
# tests/tests/jvm_golden.rs checks them; tests/tests/jvm_live.rs runs this code live.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/vectors}"
mkdir -p "$out"
classes="$(mktemp -d)"
trap 'rm -rf "$classes"' EXIT

spark_jar="${SPARK_SKETCH_JAR:-}"
if [ -z "$spark_jar" ]; then
    pyspark_dir="$(python3 -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))' 2>/dev/null || true)"
    if [ -n "$pyspark_dir" ]; then
        spark_jar="$(ls "$pyspark_dir"/jars/spark-sketch_*.jar 2>/dev/null | head -n1 || true)"
    fi
fi
guava_jar="${GUAVA_JAR:-/usr/share/java/guava.jar}"

if [ -n "$spark_jar" ] && [ -f "$spark_jar" ]; then
    javac -nowarn -cp "$spark_jar" -d "$classes" "$here/Keys.java" "$here/SparkGolden.java"
    java -cp "$spark_jar:$classes" SparkGolden generate "$out" > "$out/spark.txt"
    echo "spark: $(basename "$spark_jar"), $(wc -l < "$out/spark.txt") vectors"
else
    echo "spark: no spark-sketch jar (pip install pyspark), skipped" >&2
fi
if [ -f "$guava_jar" ]; then
    javac -nowarn -cp "$guava_jar" -d "$classes" "$here/Keys.java" "$here/GuavaGolden.java"
    java -cp "$guava_jar:$classes" GuavaGolden generate "$out" > "$out/guava.txt"
    echo "guava: $(readlink -f "$guava_jar" | xargs basename), $(wc -l < "$out/guava.txt") vectors"
else
    echo "guava: no $guava_jar (apt-get install libguava-java), skipped" >&2
fi
