/*
 * utf8conf adapter for the JDK's UTF-8 CharsetDecoder (protocol utf8conf/2; streaming in
 * replace mode).
 *
 * Decoder: StandardCharsets.UTF_8.newDecoder(), the java.nio.charset decoder every
 * String(byte[], UTF_8) and InputStreamReader call goes through.
 *
 * Modes (first argument):
 *   report   onMalformedInput(CodingErrorAction.REPORT)
 *              The bytes are first passed with endOfInput = false, the streaming
 *              call, because only that call lets the decoder say "I need more
 *              bytes" instead of "these bytes are malformed":
 *              valid        no CoderResult error, before or at end of input
 *              valid_up_to  the input buffer's position when the decoder stopped
 *              error_len    CoderResult.length() of a malformed-input result;
 *                           null when the streaming call returned UNDERFLOW with
 *                           input left over, i.e. the decoder said the input ended
 *                           inside a sequence it could still complete (the
 *                           end-of-input call then reports those leftover bytes as
 *                           malformed; its CoderResult is quoted in `error`)
 *              scalars      only when valid: the decoded chars, UTF-16 surrogate
 *                           pairs combined into scalar values
 *              error        CoderResult.toString(), e.g. "MALFORMED[1]"
 *   replace  onMalformedInput(CodingErrorAction.REPLACE), the default replacement
 *            "\uFFFD", through CharsetDecoder.decode(ByteBuffer)
 *              scalars      the decoded chars, surrogate pairs combined (a lone
 *                           surrogate, which this decoder should never produce,
 *                           would be reported as its own code unit, not hidden)
 *              valid        from a REPORT decoder on the same bytes (the replacing
 *                           decoder does not say whether it replaced)
 *
 * Cannot report: errors after the first (report mode); positions in replace mode.
 *
 * Streaming mode (replace mode only; docs/PROTOCOL.md): an input sent as chunk frames
 * goes through a fresh REPLACE decoder the way java.nio callers stream (what
 * InputStreamReader does): each chunk is appended to the bytes the previous call left
 * unconsumed in its ByteBuffer and fed with decode(in, out, endOfInput = false); the end
 * mark calls decode(in, out, true) and then flush(out). The chars each call wrote are the
 * chunk's `emitted` list and the `flush`. `valid` comes from a REPORT decoder fed the same
 * chunks the same way: false when any of its calls returned an error CoderResult.
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes) exactly one JSON line with its `seq`, flushed; exit 0 at end of input. A header
 * with the top bit set is a chunk of a streamed input, 0xFFFFFFFF its end mark.
 */

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

public final class Utf8Adapter {
    /** Streaming mode's frame headers (docs/PROTOCOL.md, "Streaming mode"). */
    private static final long CHUNK_FLAG = 0x80000000L;
    private static final long END_MARK = 0xFFFFFFFFL;

    private final boolean replaceMode;
    private final CharsetDecoder reportingDecoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final CharsetDecoder replacingDecoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);

    private Utf8Adapter(boolean replaceMode) {
        this.replaceMode = replaceMode;
    }

    public static void main(String[] args) throws IOException {
        String mode = args.length == 0 ? "report" : args[0];
        if (args.length > 1 || !(mode.equals("report") || mode.equals("replace"))) {
            System.err.println("usage: Utf8Adapter [report|replace]");
            System.exit(2);
        }
        Utf8Adapter adapter = new Utf8Adapter(mode.equals("replace"));
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);

        boolean streaming = adapter.replaceMode;
        StringBuilder hello = new StringBuilder("{\"protocol\":\"utf8conf/2\",\"name\":");
        appendJsonString(hello, "java-" + mode);
        hello.append(",\"version\":");
        appendJsonString(hello, "java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version") + ")");
        hello.append(",\"streaming\":").append(streaming).append("}\n");
        writeLine(out, hello);

        byte[] header = new byte[4];
        long seq = 0;
        Stream stream = null;
        while (true) {
            int got = in.read(header, 0, 4);
            if (got < 0) {
                out.flush();
                if (stream != null) {
                    System.err.println("Utf8Adapter: end of input inside a streamed input");
                    System.exit(2);
                }
                System.exit(0);
            }
            try {
                if (got < 4) {
                    in.readFully(header, got, 4 - got);
                }
                long length = (header[0] & 0xffL) | (header[1] & 0xffL) << 8
                        | (header[2] & 0xffL) << 16 | (header[3] & 0xffL) << 24;
                StringBuilder answer;
                if (streaming && length == END_MARK) {
                    answer = (stream != null ? stream : new Stream()).finish();
                    stream = null;
                    writeLine(out, withSeq(answer, seq++));
                    continue;
                }
                boolean chunk = streaming && (length & CHUNK_FLAG) != 0;
                if (chunk) {
                    length &= ~CHUNK_FLAG;
                }
                if (length > Integer.MAX_VALUE - 16) {
                    System.err.println("Utf8Adapter: frame too large for a Java array: " + length);
                    System.exit(2);
                }
                byte[] data = new byte[(int) length];
                in.readFully(data);
                if (chunk) {
                    stream = stream != null ? stream : new Stream();
                    stream.feed(data);
                    continue;
                }
                writeLine(out, withSeq(adapter.answer(data), seq++));
            } catch (EOFException truncated) {
                System.err.println("Utf8Adapter: end of input inside a frame");
                System.exit(2);
            }
        }
    }

    /** The answer line with `"seq":N` as its first field. */
    private static StringBuilder withSeq(StringBuilder answer, long seq) {
        return answer.insert(1, "\"seq\":" + seq + ",");
    }

    /**
     * One streamed input: a REPLACE decoder whose chars per call are reported, and a
     * REPORT decoder fed the same chunks for validity. Each keeps the bytes its last call
     * did not consume, as a caller of decode(in, out, false) must.
     */
    private static final class Stream {
        private final CharsetDecoder replacing = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        private final CharsetDecoder reporting = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        private ByteBuffer replacingLeft = ByteBuffer.allocate(0);
        private ByteBuffer reportingLeft = ByteBuffer.allocate(0);
        private boolean valid = true;
        private final StringBuilder emitted = new StringBuilder("[");
        private boolean firstChunk = true;

        /** decode(in, out, false) on the leftover bytes plus chunk, for both decoders. */
        void feed(byte[] chunk) {
            replacingLeft = append(replacingLeft, chunk);
            CharBuffer chars = CharBuffer.allocate(replacingLeft.remaining() + 2);
            CoderResult result = replacing.decode(replacingLeft, chars, false);
            if (result.isOverflow()) {
                throw new IllegalStateException("CharBuffer overflow feeding " + chunk.length + " bytes");
            }
            chars.flip();
            emitted.append(firstChunk ? "" : ",");
            firstChunk = false;
            appendScalars(emitted, chars);
            if (valid) {
                reportingLeft = append(reportingLeft, chunk);
                CharBuffer sink = CharBuffer.allocate(reportingLeft.remaining() + 2);
                valid = !reporting.decode(reportingLeft, sink, false).isError();
            }
        }

        /** decode(in, out, true) and flush(out), and the answer. */
        StringBuilder finish() {
            CharBuffer chars = CharBuffer.allocate(replacingLeft.remaining() + 2);
            CoderResult atEnd = replacing.decode(replacingLeft, chars, true);
            CoderResult flushed = replacing.flush(chars);
            if (atEnd.isOverflow() || flushed.isOverflow()) {
                throw new IllegalStateException("CharBuffer overflow at the end of a stream");
            }
            chars.flip();
            if (valid) {
                CharBuffer sink = CharBuffer.allocate(reportingLeft.remaining() + 2);
                valid = !reporting.decode(reportingLeft, sink, true).isError()
                        && !reporting.flush(sink).isError();
            }
            StringBuilder line = new StringBuilder("{\"valid\":").append(valid);
            line.append(",\"emitted\":").append(emitted).append("],\"flush\":");
            appendScalars(line, chars);
            return line.append("}\n");
        }

        /** A buffer holding left's remaining bytes, then chunk, ready to read. */
        private static ByteBuffer append(ByteBuffer left, byte[] chunk) {
            ByteBuffer joined = ByteBuffer.allocate(left.remaining() + chunk.length);
            joined.put(left).put(chunk).flip();
            return joined;
        }
    }

    private StringBuilder answer(byte[] data) {
        StringBuilder line = new StringBuilder(32 + data.length * 6);
        if (replaceMode) {
            boolean valid = reportingDecode(data, null) == null;
            CharBuffer decoded;
            try {
                decoded = replacingDecoder.decode(ByteBuffer.wrap(data));
            } catch (CharacterCodingException impossible) {
                // REPLACE never throws; if it ever did, say so instead of guessing.
                line.append("{\"valid\":").append(valid).append(",\"error\":");
                appendJsonString(line, "replacing decoder threw " + impossible);
                return line.append("}\n");
            }
            line.append("{\"valid\":").append(valid).append(",\"scalars\":");
            appendScalars(line, decoded);
            return line.append("}\n");
        }
        CharBuffer decoded = CharBuffer.allocate(data.length + 2);
        String failure = reportingDecode(data, decoded);
        if (failure == null) {
            decoded.flip();
            line.append("{\"valid\":true,\"scalars\":");
            appendScalars(line, decoded);
            return line.append("}\n");
        }
        return line.append(failure);
    }

    /**
     * Runs the REPORT decoder over all of data, writing chars to output (when
     * given). Returns null when the decoder reports no error, otherwise the
     * answer's JSON fields for the first error, closing brace and newline included.
     */
    private String reportingDecode(byte[] data, CharBuffer output) {
        CharBuffer sink = output != null ? output : CharBuffer.allocate(data.length + 2);
        ByteBuffer input = ByteBuffer.wrap(data);
        reportingDecoder.reset();
        CoderResult streaming = reportingDecoder.decode(input, sink, false);
        if (streaming.isError()) {
            return errorFields(input.position(), Integer.toString(streaming.length()), streaming.toString());
        }
        if (streaming.isOverflow()) {
            // The sink holds data.length + 2 chars and UTF-8 never yields more chars
            // than bytes, so this is a broken invariant: fail loudly, don't guess.
            throw new IllegalStateException("CharBuffer overflow decoding " + data.length + " bytes");
        }
        boolean waitingForMore = input.hasRemaining();
        int stoppedAt = input.position();
        CoderResult atEnd = reportingDecoder.decode(input, sink, true);
        if (waitingForMore) {
            return errorFields(stoppedAt, "null",
                    "UNDERFLOW with " + (data.length - stoppedAt)
                            + " byte(s) left; at end of input: " + atEnd);
        }
        if (atEnd.isError()) {
            return errorFields(input.position(), Integer.toString(atEnd.length()), atEnd.toString());
        }
        CoderResult flushed = reportingDecoder.flush(sink);
        if (flushed.isError()) {
            return errorFields(input.position(), Integer.toString(flushed.length()), flushed.toString());
        }
        return null;
    }

    private static String errorFields(int validUpTo, String errorLen, String error) {
        StringBuilder fields = new StringBuilder("{\"valid\":false,\"valid_up_to\":");
        fields.append(validUpTo).append(",\"error_len\":").append(errorLen).append(",\"error\":");
        appendJsonString(fields, error);
        return fields.append("}\n").toString();
    }

    /** Appends the chars as a JSON array of code points, surrogate pairs combined. */
    private static void appendScalars(StringBuilder line, CharBuffer chars) {
        line.append('[');
        int limit = chars.limit();
        int index = chars.position();
        boolean first = true;
        while (index < limit) {
            int codePoint = Character.codePointAt(chars, index - chars.position());
            index += Character.charCount(codePoint);
            if (!first) {
                line.append(',');
            }
            first = false;
            line.append(codePoint);
        }
        line.append(']');
    }

    private static void appendJsonString(StringBuilder line, String text) {
        line.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                line.append('\\').append(c);
            } else if (c < 0x20) {
                line.append(String.format("\\u%04x", (int) c));
            } else {
                line.append(c);
            }
        }
        line.append('"');
    }

    private static void writeLine(OutputStream out, CharSequence line) throws IOException {
        out.write(line.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
