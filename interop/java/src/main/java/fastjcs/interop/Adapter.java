package fastjcs.interop;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * io.github.erdtman:java-json-canonicalization behind the fastjcs canon batch protocol (v1).
 *
 * <p>stdin: one base64 document per line; stdout: "ok &lt;base64 canonical bytes&gt;" or
 * "error &lt;text&gt;" per line, in order, flushed after each. The raw bytes go to
 * {@code new JsonCanonicalizer(byte[])} (which decodes them as UTF-8) and the answer is
 * {@code getEncodedUTF8()}. Every exception, and a StackOverflowError, is answered as an error.
 */
public final class Adapter {
    private Adapter() {}

    static String answer(String line) {
        try {
            byte[] doc = Base64.getDecoder().decode(line);
            byte[] out = new JsonCanonicalizer(doc).getEncodedUTF8();
            return "ok " + Base64.getEncoder().encodeToString(out);
        } catch (Exception | StackOverflowError e) {
            return "error " + (e.getClass().getSimpleName() + ": " + e.getMessage()).replaceAll("\\s+", " ");
        }
    }

    /** Answers every line of stdin, then exits 0. */
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII), 1 << 20);
        OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
        for (String line; (line = in.readLine()) != null; ) {
            out.write((answer(line) + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
    }
}
