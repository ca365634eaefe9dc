/*
 * utf8conf encoder adapter for the JDK (protocol utf8conf/2, encode mode).
 *
 * Encoders: the four ways Java code turns a String (UTF-16 chars) into UTF-8 bytes.
 * Input is UTF-16 (`"encode":"utf16"`): each frame is the chars, little-endian u16.
 *
 * Modes (first argument):
 *   getbytes  new String(chars).getBytes(StandardCharsets.UTF_8). "This method always
 *             replaces malformed-input and unmappable-character sequences with this
 *             charset's default replacement byte array" (String.getBytes), which for
 *             UTF-8 is `?` (3F). Always ok.
 *   report    a CharsetEncoder of UTF_8 with CodingErrorAction.REPORT, driven with
 *             encode(in, out, true) then flush(out). A malformed CoderResult leaves
 *             the CharBuffer's position at the refused char: that is error_at, and the
 *             bytes written before it are `bytes`. The convenience encode(CharBuffer)
 *             would throw MalformedInputException, which has a length but no position.
 *   replace   the same CharsetEncoder with CodingErrorAction.REPLACE and its default
 *             replacement (`?`), through encode(CharBuffer). Always ok.
 *   writeutf  DataOutputStream.writeUTF(String): "modified UTF-8" (java.io.DataInput):
 *             U+0000 as C0 80, each char on its own (so supplementary characters as two
 *             3-byte surrogates), no 4-byte forms. Its 2-byte length prefix is
 *             stripped. It refuses a String whose encoding exceeds 65535 bytes with
 *             UTFDataFormatException before writing anything: ok false, no error_at
 *             (the exception names no char), no bytes.
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes; N even) exactly one JSON line with its `seq`, flushed; exit 0 at end of input.
 * A frame of odd length, or one cut short by the end of input, is a one-line error on
 * stderr and exit 2. A frame's buffer grows as its bytes arrive, so a header that
 * announces more bytes than follow costs no memory.
 */

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

public final class EncodeAdapter {
    private static final String[][] MODES = {
        {"getbytes", "jdk-getBytes"},
        {"report", "jdk-CharsetEncoder-REPORT"},
        {"replace", "jdk-CharsetEncoder-REPLACE"},
        {"writeutf", "jdk-writeUTF"},
    };
    /** The largest frame a Java array can hold. */
    private static final long MAX_FRAME = Integer.MAX_VALUE - 16;
    /** The first allocation for a frame; it doubles as bytes arrive. */
    private static final int FIRST_CHUNK = 1 << 16;

    private final String mode;
    private final CharsetEncoder encoder;

    private EncodeAdapter(String mode) {
        this.mode = mode;
        CodingErrorAction action = mode.equals("replace") ? CodingErrorAction.REPLACE : CodingErrorAction.REPORT;
        this.encoder = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(action)
                .onUnmappableCharacter(action);
    }

    public static void main(String[] args) throws IOException {
        String mode = args.length == 0 ? "getbytes" : args[0];
        String name = null;
        for (String[] known : MODES) {
            if (known[0].equals(mode)) {
                name = known[1];
            }
        }
        if (args.length > 1 || name == null) {
            System.err.println("usage: EncodeAdapter [getbytes|report|replace|writeutf]");
            System.exit(2);
        }
        EncodeAdapter adapter = new EncodeAdapter(mode);
        InputStream in = new BufferedInputStream(System.in, 1 << 16);
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        String version = "java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version") + ")";
        writeAscii(out, "{\"protocol\":\"utf8conf/2\",\"name\":\"" + name + "\",\"version\":"
                + jsonString(version) + ",\"encode\":\"utf16\"}\n");
        out.flush();

        for (long seq = 0; ; seq++) {
            byte[] header = readUpTo(in, 4);
            if (header.length == 0) {
                out.flush();
                System.exit(0);
            }
            if (header.length != 4) {
                fail("end of input inside a frame header");
            }
            long length = (header[0] & 0xffL) | (header[1] & 0xffL) << 8
                    | (header[2] & 0xffL) << 16 | (header[3] & 0xffL) << 24;
            if (length % 2 != 0) {
                fail("frame of " + length + " bytes is not a whole number of UTF-16 code units");
            }
            if (length > MAX_FRAME) {
                fail("frame of " + length + " bytes is too large for a Java array");
            }
            byte[] data = readUpTo(in, (int) length);
            if (data.length != length) {
                fail("end of input inside a frame body");
            }
            char[] chars = new char[data.length / 2];
            for (int i = 0; i < chars.length; i++) {
                chars[i] = (char) ((data[2 * i] & 0xff) | (data[2 * i + 1] & 0xff) << 8);
            }
            writeAscii(out, "{\"seq\":" + seq + ",");
            adapter.answer(chars, out);
            out.flush();
        }
    }

    /** Writes the answer's fields after `{"seq":K,`, and the closing brace and newline. */
    private void answer(char[] chars, OutputStream out) throws IOException {
        switch (mode) {
            case "getbytes":
                okLine(out, new String(chars).getBytes(StandardCharsets.UTF_8), 0, -1);
                return;
            case "replace":
                ByteBuffer replaced;
                try {
                    replaced = encoder.encode(CharBuffer.wrap(chars));
                } catch (CharacterCodingException impossible) {
                    // REPLACE never reports; an exception here is the JDK breaking its contract.
                    throw new IllegalStateException("CharsetEncoder with REPLACE threw " + impossible);
                }
                okLine(out, replaced.array(), replaced.arrayOffset(), replaced.limit());
                return;
            case "report":
                report(chars, out);
                return;
            default:
                writeUtf(chars, out);
        }
    }

    /** encode(in, out, true) and flush(out) with REPORT; a malformed result is the refusal. */
    private void report(char[] chars, OutputStream out) throws IOException {
        CharBuffer input = CharBuffer.wrap(chars);
        // A char encodes to at most 3 bytes (a pair, two chars, to 4).
        ByteBuffer output = ByteBuffer.allocate(3 * chars.length + 16);
        encoder.reset();
        CoderResult result = encoder.encode(input, output, true);
        if (!result.isError()) {
            result = encoder.flush(output);
        }
        if (result.isOverflow()) {
            throw new IllegalStateException("ByteBuffer overflow encoding " + chars.length + " chars");
        }
        if (!result.isError()) {
            okLine(out, output.array(), 0, output.position());
            return;
        }
        writeAscii(out, "\"ok\":false,\"error_at\":" + input.position() + ",");
        if (output.position() > 0) {
            writeBytes(out, output.array(), 0, output.position());
            out.write(',');
        }
        writeAscii(out, "\"error\":" + jsonString(result.toString()) + "}\n");
    }

    /** DataOutputStream.writeUTF, its 2-byte big-endian length prefix stripped. */
    private static void writeUtf(char[] chars, OutputStream out) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream(3 * chars.length + 2);
        try {
            new DataOutputStream(sink).writeUTF(new String(chars));
        } catch (UTFDataFormatException tooLong) {
            writeAscii(out, "\"ok\":false,\"error\":" + jsonString(String.valueOf(tooLong.getMessage())) + "}\n");
            return;
        }
        byte[] written = sink.toByteArray();
        okLine(out, written, 2, written.length);
    }

    /** `"ok":true,"bytes":[…]}` for bytes[from..to) (to -1: the whole array). */
    private static void okLine(OutputStream out, byte[] bytes, int from, int to) throws IOException {
        writeAscii(out, "\"ok\":true,");
        writeBytes(out, bytes, from, to < 0 ? bytes.length : to);
        writeAscii(out, "}\n");
    }

    /** `"bytes":[…]` for bytes[from..to), as decimal integers. */
    private static void writeBytes(OutputStream out, byte[] bytes, int from, int to) throws IOException {
        writeAscii(out, "\"bytes\":[");
        for (int i = from; i < to; i++) {
            if (i > from) {
                out.write(',');
            }
            int value = bytes[i] & 0xff;
            if (value >= 100) {
                out.write('0' + value / 100);
            }
            if (value >= 10) {
                out.write('0' + value / 10 % 10);
            }
            out.write('0' + value % 10);
        }
        out.write(']');
    }

    /**
     * Reads up to `length` bytes, fewer only at end of input. The buffer starts small and
     * doubles as bytes arrive, so memory follows the bytes really sent, not the header.
     */
    private static byte[] readUpTo(InputStream in, int length) throws IOException {
        byte[] buffer = new byte[Math.min(length, FIRST_CHUNK)];
        int filled = 0;
        while (filled < length) {
            if (filled == buffer.length) {
                buffer = Arrays.copyOf(buffer, (int) Math.min(length, 2L * buffer.length));
            }
            int got = in.read(buffer, filled, buffer.length - filled);
            if (got < 0) {
                break;
            }
            filled += got;
        }
        return filled == buffer.length ? buffer : Arrays.copyOf(buffer, filled);
    }

    private static void fail(String message) {
        System.err.println("EncodeAdapter: " + message);
        System.exit(2);
    }

    private static String jsonString(String text) {
        StringBuilder line = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                line.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                line.append(String.format("\\u%04x", (int) c));
            } else {
                line.append(c);
            }
        }
        return line.append('"').toString();
    }

    private static void writeAscii(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.US_ASCII));
    }
}
