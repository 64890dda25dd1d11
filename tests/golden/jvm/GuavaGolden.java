// Golden vectors of Guava's BloomFilter (MURMUR128_MITZ_64), made by Guava itself.
// Compile against Debian's libguava-java (/usr/share/java/guava.jar):
//   javac -cp guava.jar -d out Keys.java GuavaGolden.java
//   java -cp guava.jar:out GuavaGolden generate DIR     (writes DIR/guava-*.bin, prints the manifest)
//   java -cp guava.jar:out GuavaGolden check FILE KIND N PROBES   (prints positives and digest)
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;

public final class GuavaGolden {
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Funnel<Object> funnel(String kind) {
        switch (kind) {
            case "long": return (Funnel) Funnels.longFunnel();
            case "str": return (Funnel) Funnels.stringFunnel(StandardCharsets.UTF_8);
            default: return (Funnel) Funnels.byteArrayFunnel();
        }
    }

    static Object key(String kind, long i) {
        switch (kind) {
            case "long": return Keys.gen(i);
            case "str": return Keys.str(i);
            default: return Keys.bytes(i);
        }
    }

    static String answers(BloomFilter<Object> f, String kind, long n, long probes) {
        Keys.Digest d = new Keys.Digest();
        long first = Keys.firstProbe(n, probes);
        for (long i = first; i < first + probes; i++) d.add(f.mightContain(key(kind, i)));
        return d.finish();
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("check")) {
            BloomFilter<Object> f;
            try (InputStream in = new BufferedInputStream(new FileInputStream(args[1]))) {
                f = BloomFilter.readFrom(in, funnel(args[2]));
            }
            System.out.println(answers(f, args[2], Long.parseLong(args[3]), Long.parseLong(args[4])));
            return;
        }
        Path dir = Paths.get(args[1]);
        long probes = 1_000_000;
        // name kind n fpp
        Object[][] vectors = {
            {"guava-long-1k", "long", 1_000L, 0.03},
            {"guava-str-5k", "str", 5_000L, 0.01},
            {"guava-bytes-2k", "bytes", 2_000L, 0.05},
            {"guava-long-100k", "long", 100_000L, 0.001},
        };
        for (Object[] v : vectors) {
            String name = (String) v[0];
            String kind = (String) v[1];
            long n = (Long) v[2];
            double fpp = (Double) v[3];
            BloomFilter<Object> f = BloomFilter.create(funnel(kind), n, fpp);
            long changed = 0;
            for (long i = 0; i < n; i++) if (f.put(key(kind, i))) changed++;
            try (OutputStream out = new FileOutputStream(dir.resolve(name + ".bin").toFile())) {
                f.writeTo(out);
            }
            System.out.println(name + " 0 " + kind + " " + n + " " + fpp + " 0"
                + " " + changed + " " + f.expectedFpp() + " " + probes + " " + answers(f, kind, n, probes)
                + " " + f.approximateElementCount());
        }
    }
}
