/*
 * utf8conf adapter for the JDK's DataInputStream.readUTF (protocol utf8conf/1).
 *
 * Decoder: java.io.DataInputStream.readUTF(), which reads "modified UTF-8" (the
 * java.io.DataInput interface documentation): U+0000 is written as C0 80, and
 * supplementary characters as two 3-byte encoded surrogates (CESU-8 style); 4-byte
 * forms are not part of the format. It is what ObjectInputStream, class files and
 * JNI-style data use. The harness should recognise it as that known variant.
 *
 * Each input is given to readUTF as its 2-byte big-endian length followed by the
 * bytes (the format readUTF reads). Fields:
 *   valid    readUTF returned instead of throwing UTFDataFormatException
 *   scalars  only when valid: the returned String's chars, a high surrogate followed
 *            by a low one combined into one scalar value, any other surrogate
 *            reported as its own code unit (readUTF does produce lone surrogates)
 *   error    the UTFDataFormatException message ("malformed input around byte N",
 *            "malformed input: partial character at end")
 *
 * Cannot report: valid_up_to and error_len (the message's "around byte N" is not
 * defined as the offset of the first error); a lossy decode (readUTF has no
 * replacement mode). Inputs longer than 65535 bytes cannot be given to readUTF at
 * all: the adapter says so on stderr and exits 2.
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes) exactly one JSON line, flushed; exit 0 at end of input.
 */

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.nio.charset.StandardCharsets;

public final class ReadUtfAdapter {
    private static final int READ_UTF_LIMIT = 65535;

    public static void main(String[] args) throws IOException {
        if (args.length != 0) {
            System.err.println("usage: ReadUtfAdapter");
            System.exit(2);
        }
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        StringBuilder hello = new StringBuilder("{\"protocol\":\"utf8conf/1\",\"name\":\"java-readutf\",\"version\":");
        appendJsonString(hello, "java " + System.getProperty("java.version") + " DataInputStream.readUTF");
        hello.append('}');
        writeLine(out, hello);

        byte[] header = new byte[4];
        while (true) {
            int got = in.read(header, 0, 4);
            if (got < 0) {
                out.flush();
                System.exit(0);
            }
            try {
                if (got < 4) {
                    in.readFully(header, got, 4 - got);
                }
                long length = (header[0] & 0xffL) | (header[1] & 0xffL) << 8
                        | (header[2] & 0xffL) << 16 | (header[3] & 0xffL) << 24;
                if (length > READ_UTF_LIMIT) {
                    System.err.println("ReadUtfAdapter: readUTF cannot take " + length
                            + " bytes (its length prefix is 16 bits)");
                    System.exit(2);
                }
                byte[] data = new byte[(int) length];
                in.readFully(data);
                writeLine(out, answer(data));
            } catch (EOFException truncated) {
                System.err.println("ReadUtfAdapter: end of input inside a frame");
                System.exit(2);
            }
        }
    }

    private static StringBuilder answer(byte[] data) {
        byte[] framed = new byte[data.length + 2];
        framed[0] = (byte) (data.length >>> 8);
        framed[1] = (byte) data.length;
        System.arraycopy(data, 0, framed, 2, data.length);
        StringBuilder line = new StringBuilder(32 + data.length * 8);
        String text;
        try {
            text = new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
        } catch (UTFDataFormatException malformed) {
            line.append("{\"valid\":false,\"error\":");
            appendJsonString(line, String.valueOf(malformed.getMessage()));
            return line.append('}');
        } catch (IOException impossible) {
            // A ByteArrayInputStream holding the whole frame cannot fail or end early.
            line.append("{\"valid\":false,\"error\":");
            appendJsonString(line, "readUTF failed: " + impossible);
            return line.append('}');
        }
        line.append("{\"valid\":true,\"scalars\":[");
        for (int i = 0; i < text.length(); i++) {
            char unit = text.charAt(i);
            int scalar = unit;
            if (Character.isHighSurrogate(unit) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                scalar = Character.toCodePoint(unit, text.charAt(i + 1));
                i++;
            }
            if (line.charAt(line.length() - 1) != '[') {
                line.append(',');
            }
            line.append(scalar);
        }
        return line.append("]}");
    }

    private static void appendJsonString(StringBuilder line, String text) {
        line.append('"');
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
        line.append('"');
    }

    private static void writeLine(OutputStream out, CharSequence line) throws IOException {
        out.write(line.toString().getBytes(StandardCharsets.US_ASCII));
        out.write('\n');
        out.flush();
    }
}
