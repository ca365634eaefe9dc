// Command go-adapter is the utf8conf adapter for Go's built-in UTF-8 handling
// (protocol utf8conf/2; streaming in range mode).
//
// Decoder: the Go language's string range loop and the standard library's
// unicode/utf8 and strings packages, as shipped with the Go toolchain that built
// this program (runtime.Version in the hello line).
//
// Modes (first argument):
//
//	range    `for _, r := range s`: the range loop yields utf8.RuneError (U+FFFD)
//	         and advances one byte for each byte that does not start a valid
//	         encoding ("if the iteration encounters an invalid UTF-8 sequence,
//	         the second value will be 0xFFFD, and the next iteration will advance
//	         a single byte", The Go Programming Language Specification, For
//	         statements with range clause).
//	           valid        utf8.Valid
//	           scalars      the runes the range loop yields
//	           valid_up_to  the offset of the first (utf8.RuneError, 1) returned by
//	                        utf8.DecodeRune, the result its documentation calls
//	                        "impossible for correct, non-empty UTF-8" (a literal
//	                        U+FFFD in the input decodes with size 3, not 1)
//	           error_len    that size, which is always 1: Go's error unit is one
//	                        byte. Never null: DecodeRune does not distinguish a
//	                        truncated sequence at the end of input from an
//	                        invalid one.
//	tovalid  `strings.ToValidUTF8(s, "\uFFFD")`, which replaces each run of
//	         invalid bytes with one replacement string
//	           valid        utf8.Valid
//	           scalars      the runes of the returned string
//	           valid_up_to, error_len: ABSENT, ToValidUTF8 reports no positions.
//
// Streaming mode (range mode only; docs/PROTOCOL.md): Go has no incremental decoder
// type; Go code that decodes a byte stream keeps the bytes not yet decoded and calls
// utf8.FullRune before utf8.DecodeRune ("FullRune reports whether the bytes in p begin
// with a full UTF-8 encoding of a rune. An invalid encoding is considered a full Rune
// since it will convert as a width-1 error rune", unicode/utf8), which is what
// bufio.Reader.ReadRune does. So each chunk is appended to the carried-over bytes, and
// runes are decoded while FullRune holds; what that yields is the chunk's `emitted`
// list. At the end mark the bytes left (a prefix FullRune was waiting on) are decoded
// with DecodeRune to the end: the `flush`. `valid` is false when any DecodeRune call
// returned (utf8.RuneError, 1).
//
// Protocol: a hello line, then for each frame (4-byte little-endian length N,
// then N bytes) exactly one JSON line with its `seq`, flushed; exit 0 at end of
// input. A header with the top bit set is a chunk of a streamed input, 0xFFFFFFFF
// its end mark.
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendScalars appends the runes of s as a JSON array of integers.
func appendScalars(line []byte, s string) []byte {
	line = append(line, `"scalars":[`...)
	first := true
	for _, r := range s {
		if !first {
			line = append(line, ',')
		}
		first = false
		line = strconv.AppendInt(line, int64(r), 10)
	}
	return append(line, ']')
}

// Streaming mode's frame headers (docs/PROTOCOL.md, "Streaming mode").
const (
	chunkFlag = 0x80000000
	endMark   = 0xFFFFFFFF
)

// stream is one streamed input: the bytes not yet decoded and what each chunk yielded.
type stream struct {
	pending []byte
	valid   bool
	emitted [][]rune
}

// decode decodes runes off the front of s.pending while complete(s.pending) holds.
func (s *stream) decode(complete func([]byte) bool) []rune {
	runes := []rune{}
	offset := 0
	for offset < len(s.pending) && complete(s.pending[offset:]) {
		r, size := utf8.DecodeRune(s.pending[offset:])
		if r == utf8.RuneError && size == 1 {
			s.valid = false
		}
		runes = append(runes, r)
		offset += size
	}
	s.pending = append(s.pending[:0], s.pending[offset:]...)
	return runes
}

// feed appends chunk to the carried-over bytes and decodes every full rune.
func (s *stream) feed(chunk []byte) {
	s.pending = append(s.pending, chunk...)
	s.emitted = append(s.emitted, s.decode(utf8.FullRune))
}

// finish decodes what is left (end of input) and builds the answer.
func (s *stream) finish(line []byte) []byte {
	flush := s.decode(func([]byte) bool { return true })
	line = append(line, `{"valid":`...)
	line = strconv.AppendBool(line, s.valid)
	line = append(line, `,"emitted":[`...)
	for index, runes := range s.emitted {
		if index > 0 {
			line = append(line, ',')
		}
		line = appendRunes(line, runes)
	}
	line = append(line, `],"flush":`...)
	line = appendRunes(line, flush)
	return append(line, "}\n"...)
}

// appendRunes appends runes as a JSON array of integers.
func appendRunes(line []byte, runes []rune) []byte {
	line = append(line, '[')
	for index, r := range runes {
		if index > 0 {
			line = append(line, ',')
		}
		line = strconv.AppendInt(line, int64(r), 10)
	}
	return append(line, ']')
}

// withSeq puts `"seq":N,` in front of the answer's first field.
func withSeq(line []byte, seq uint64) []byte {
	prefix := strconv.AppendUint([]byte(`{"seq":`), seq, 10)
	prefix = append(prefix, ',')
	return append(prefix, line[1:]...)
}

// answerRange builds the answer of the range mode.
func answerRange(line []byte, data []byte) []byte {
	valid := utf8.Valid(data)
	line = append(line, `{"valid":`...)
	line = strconv.AppendBool(line, valid)
	if !valid {
		for offset := 0; offset < len(data); {
			r, size := utf8.DecodeRune(data[offset:])
			if r == utf8.RuneError && size == 1 {
				line = append(line, `,"valid_up_to":`...)
				line = strconv.AppendInt(line, int64(offset), 10)
				line = append(line, `,"error_len":`...)
				line = strconv.AppendInt(line, int64(size), 10)
				break
			}
			offset += size
		}
	}
	line = append(line, ',')
	line = appendScalars(line, string(data))
	return append(line, "}\n"...)
}

// answerToValid builds the answer of the tovalid mode.
func answerToValid(line []byte, data []byte) []byte {
	line = append(line, `{"valid":`...)
	line = strconv.AppendBool(line, utf8.Valid(data))
	line = append(line, ',')
	line = appendScalars(line, strings.ToValidUTF8(string(data), "\uFFFD"))
	return append(line, "}\n"...)
}

func main() {
	mode := "range"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	var answer func([]byte, []byte) []byte
	switch {
	case len(os.Args) > 2:
	case mode == "range":
		answer = answerRange
	case mode == "tovalid":
		answer = answerToValid
	}
	if answer == nil {
		fmt.Fprintln(os.Stderr, "usage: go-adapter [range|tovalid]")
		os.Exit(2)
	}

	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	streaming := mode == "range"
	hello := `{"protocol":"utf8conf/2","name":` + strconv.Quote("go-"+mode) +
		`,"version":` + strconv.Quote(runtime.Version()) +
		`,"streaming":` + strconv.FormatBool(streaming) + "}\n"
	writeLine(out, []byte(hello))

	var header [4]byte
	var data, line []byte
	var seq uint64
	var current *stream
	for {
		if _, err := io.ReadFull(in, header[:]); err != nil {
			if err == io.EOF && current == nil {
				os.Exit(0)
			}
			fmt.Fprintln(os.Stderr, "go-adapter: reading a frame header:", err)
			os.Exit(2)
		}
		length := binary.LittleEndian.Uint32(header[:])
		if streaming && length == endMark {
			if current == nil {
				current = &stream{valid: true}
			}
			writeLine(out, withSeq(current.finish(line[:0]), seq))
			seq++
			current = nil
			continue
		}
		chunk := streaming && length&chunkFlag != 0
		if chunk {
			length &^= chunkFlag
		}
		if uint64(cap(data)) < uint64(length) {
			data = make([]byte, length)
		}
		data = data[:length]
		if _, err := io.ReadFull(in, data); err != nil {
			fmt.Fprintln(os.Stderr, "go-adapter: reading a frame body:", err)
			os.Exit(2)
		}
		if chunk {
			if current == nil {
				current = &stream{valid: true}
			}
			current.feed(data)
			continue
		}
		line = answer(line[:0], data)
		writeLine(out, withSeq(line, seq))
		seq++
	}
}

// writeLine writes one protocol line and flushes it out of the process.
func writeLine(out *bufio.Writer, line []byte) {
	if _, err := out.Write(line); err == nil {
		err = out.Flush()
		if err == nil {
			return
		}
	}
	os.Exit(1)
}
