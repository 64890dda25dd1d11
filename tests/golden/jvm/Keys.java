// The keys of the JVM golden vectors, the same as tests/tests/jvm_golden.rs generates them:
// a splitmix64 sequence, strings and byte arrays derived from it, and the digest of a run of
// answers. Shared by SparkGolden.java and GuavaGolden.java.
import java.nio.charset.StandardCharsets;

final class Keys {
    private Keys() {}

    /** splitmix64 of i (Steele, Lea and Flood, 2014). */
    static long gen(long i) {
        long z = (i + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Key i as a string: lengths 2 to 21 bytes, some with two- and three-byte characters. */
    static String str(long i) {
        StringBuilder sb = new StringBuilder("k");
        sb.append(Long.toUnsignedString(gen(i) >>> (int) (i % 50)));
        if (i % 3 == 0) sb.append('\u00e9');
        if (i % 7 == 0) sb.append("\u65e5\u672c");
        return sb.toString();
    }

    static byte[] strBytes(long i) {
        return str(i).getBytes(StandardCharsets.UTF_8);
    }

    /** Key i as a byte array of i % 20 bytes, with bytes above 0x7f. */
    static byte[] bytes(long i) {
        int len = (int) (i % 20);
        byte[] b = new byte[len];
        long g = gen(i);
        for (int j = 0; j < len; j++) {
            b[j] = (byte) ((g >>> ((j % 8) * 8)) + j);
        }
        return b;
    }

    /** The first probed index: half the probes (up to) are inserted keys. */
    static long firstProbe(long n, long probes) {
        return n - Math.min(n, probes / 2);
    }

    /** FNV-1a 64 over the answers packed 8 to a byte, answer j at bit j % 8 of byte j / 8. */
    static final class Digest {
        private long hash = 0xcbf29ce484222325L;
        private int acc = 0;
        private int nbits = 0;
        long positives = 0;

        void add(boolean answer) {
            if (answer) {
                acc |= 1 << nbits;
                positives++;
            }
            if (++nbits == 8) flushByte();
        }

        private void flushByte() {
            hash ^= acc & 0xff;
            hash *= 0x100000001b3L;
            acc = 0;
            nbits = 0;
        }

        String finish() {
            if (nbits > 0) flushByte();
            return positives + " " + Long.toUnsignedString(hash, 16);
        }
    }
}
