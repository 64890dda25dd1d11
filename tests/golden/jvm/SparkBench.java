// Times Spark's own BloomFilter.mightContainLong on the JVM, for benches/src/bin/jvm_vs_spark.rs,
// which times bloom-jvm on the same filter and keys in turn with it.
//
//   javac -cp spark-sketch.jar -d out Keys.java SparkBench.java
//   java -cp spark-sketch.jar:out SparkBench N FPP FILE
//
// Builds BloomFilter.create(N, FPP) (Spark's default version) over the keys Keys.gen(i),
// i < N, writes its bytes to FILE, then queries the N keys Keys.gen(i), N/2 <= i < 3N/2 (half
// inserted), WARMUP passes to let the JIT compile the loop, and prints "ready P" (P the
// positives). Then, for each line "pass FROM TO" on standard input, it queries the keys from
// index FROM up to TO (excluded) once more, timed in the thread's CPU time (ThreadMXBean), and
// prints "NS_PER_KEY P"; it ends at end of input.
// The caller interleaves these passes with its own, so that both sides are timed moments
// apart on a machine whose speed drifts.
import java.io.*;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.apache.spark.util.sketch.BloomFilter;

public final class SparkBench {
    static final int WARMUP = 5;

    static long pass(BloomFilter f, long[] keys, int from, int to) {
        long positives = 0;
        for (int i = from; i < to; i++) {
            if (f.mightContainLong(keys[i])) positives++;
        }
        return positives;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        double fpp = Double.parseDouble(args[1]);
        BloomFilter f = BloomFilter.create(n, fpp);
        for (long i = 0; i < n; i++) f.putLong(Keys.gen(i));
        try (OutputStream out = new BufferedOutputStream(new FileOutputStream(args[2]))) {
            f.writeTo(out);
        }
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) keys[i] = Keys.gen(n / 2 + (long) i);
        long positives = 0;
        for (int r = 0; r < WARMUP; r++) positives = pass(f, keys, 0, n);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("ready " + positives);
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.split(" ");
            if (words.length != 3 || !words[0].equals("pass")) {
                throw new IllegalArgumentException("unknown request " + line);
            }
            int from = Integer.parseInt(words[1]);
            int to = Integer.parseInt(words[2]);
            long t0 = threads.getCurrentThreadCpuTime();
            long p = pass(f, keys, from, to);
            double ns = (threads.getCurrentThreadCpuTime() - t0) / (double) (to - from);
            System.out.println(ns + " " + p);
            System.out.flush();
        }
    }
}
