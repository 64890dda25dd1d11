// Golden vectors of Spark's sketch BloomFilter (V1 and V2), made by Spark's own classes.
// Compile against the spark-sketch jar that pyspark ships (pyspark/jars/spark-sketch_*.jar):
//   javac -cp spark-sketch.jar -d out Keys.java SparkGolden.java
//   java -cp spark-sketch.jar:out SparkGolden generate DIR     (writes DIR/spark-*.bin, prints the manifest)
//   java -cp spark-sketch.jar:out SparkGolden check FILE KIND N PROBES   (prints positives and digest)
import java.io.*;
import java.nio.file.*;
import org.apache.spark.util.sketch.BloomFilter;

public final class SparkGolden {
    static void put(BloomFilter f, String kind, long i, long[] changed) {
        boolean c;
        switch (kind) {
            case "long": c = f.putLong(Keys.gen(i)); break;
            case "str": c = f.putString(Keys.str(i)); break;
            default: c = f.putBinary(Keys.bytes(i)); break;
        }
        if (c) changed[0]++;
    }

    static boolean query(BloomFilter f, String kind, long i) {
        switch (kind) {
            case "long": return f.mightContainLong(Keys.gen(i));
            case "str": return f.mightContainString(Keys.str(i));
            default: return f.mightContainBinary(Keys.bytes(i));
        }
    }

    static String answers(BloomFilter f, String kind, long n, long probes) {
        Keys.Digest d = new Keys.Digest();
        long first = Keys.firstProbe(n, probes);
        for (long i = first; i < first + probes; i++) d.add(query(f, kind, i));
        return d.finish();
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("check")) {
            BloomFilter f;
            try (InputStream in = new BufferedInputStream(new FileInputStream(args[1]))) {
                f = BloomFilter.readFrom(in);
            }
            System.out.println(answers(f, args[2], Long.parseLong(args[3]), Long.parseLong(args[4])));
            return;
        }
        Path dir = Paths.get(args[1]);
        long probes = 1_000_000;
        // name version kind n fpp seed
        Object[][] vectors = {
            {"spark-v1-long-1k", 1, "long", 1_000L, 0.03, 0},
            {"spark-v1-str-5k", 1, "str", 5_000L, 0.01, 0},
            {"spark-v1-bytes-2k", 1, "bytes", 2_000L, 0.05, 0},
            {"spark-v1-long-100k", 1, "long", 100_000L, 0.01, 0},
            {"spark-v2-long-1k", 2, "long", 1_000L, 0.03, 0},
            {"spark-v2-str-5k", 2, "str", 5_000L, 0.01, 7},
            {"spark-v2-bytes-2k", 2, "bytes", 2_000L, 0.05, -12345},
            {"spark-v2-long-100k", 2, "long", 100_000L, 0.01, 0},
        };
        for (Object[] v : vectors) {
            String name = (String) v[0];
            int version = (Integer) v[1];
            String kind = (String) v[2];
            long n = (Long) v[3];
            double fpp = (Double) v[4];
            int seed = (Integer) v[5];
            BloomFilter f;
            if (version == 2 && seed == 0) {
                f = BloomFilter.create(n, fpp); // the default version and seed
            } else {
                long bits = BloomFilter.optimalNumOfBits(n, fpp);
                f = BloomFilter.create(version == 1 ? BloomFilter.Version.V1 : BloomFilter.Version.V2, n, bits, seed);
            }
            long[] changed = {0};
            for (long i = 0; i < n; i++) put(f, kind, i, changed);
            try (OutputStream out = new FileOutputStream(dir.resolve(name + ".bin").toFile())) {
                f.writeTo(out);
            }
            System.out.println(name + " " + version + " " + kind + " " + n + " " + fpp + " " + seed
                + " " + changed[0] + " " + f.expectedFpp() + " " + probes + " " + answers(f, kind, n, probes));
        }
    }
}
