// Command go-encode-adapter is the utf8conf encoder adapter for Go's built-in UTF-8
// encoding (protocol utf8conf/2, encode mode).
//
// Encoders: the standard library's unicode/utf8 package and the language's
// []rune-to-string conversion, as shipped with the Go toolchain that built this
// program (runtime.Version in the hello line). Input is UTF-32 (`"encode":"utf32"`):
// each frame is u32 values, little-endian, each converted to a rune (int32) as Go code
// holding the value would: values from 0x80000000 up become negative runes.
//
// Modes (first argument):
//
//	encoderune  utf8.EncodeRune into a 4-byte buffer for each rune: "If the rune is
//	            out of range, it writes the encoding of RuneError" (unicode/utf8),
//	            and "Surrogates ... are invalid" runes.
//	appendrune  utf8.AppendRune onto one slice: "If the rune is out of range, it
//	            appends the encoding of RuneError" (Go 1.18).
//	string      string(runes): "Converting a slice of runes to a string type yields
//	            a string that is the concatenation of the individual rune values
//	            converted to strings", and converting an integer that "is not a valid
//	            Unicode code point" yields "\uFFFD" (The Go Programming Language
//	            Specification, Conversions to and from a string type).
//
// None of them can refuse input, so every answer is ok with its bytes.
//
// Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
// bytes; N a multiple of 4) exactly one JSON line with its `seq`, flushed; exit 0 at
// end of input. A frame whose length is not a multiple of 4, or that is cut short, is a
// one-line error on stderr and exit 2. The frame is read with io.CopyN into a growing
// buffer, so a header that announces more bytes than follow costs no memory.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"unicode/utf8"
)

// encodeRune encodes each rune with utf8.EncodeRune.
func encodeRune(out []byte, runes []rune) []byte {
	var buffer [utf8.UTFMax]byte
	for _, r := range runes {
		size := utf8.EncodeRune(buffer[:], r)
		out = append(out, buffer[:size]...)
	}
	return out
}

// appendRune encodes each rune with utf8.AppendRune.
func appendRune(out []byte, runes []rune) []byte {
	for _, r := range runes {
		out = utf8.AppendRune(out, r)
	}
	return out
}

// convertString encodes the runes with the string([]rune) conversion.
func convertString(out []byte, runes []rune) []byte {
	return append(out, string(runes)...)
}

// modes maps each mode argument to its hello name and its encoder.
var modes = map[string]struct {
	name   string
	encode func([]byte, []rune) []byte
}{
	"encoderune": {"go-EncodeRune", encodeRune},
	"appendrune": {"go-AppendRune", appendRune},
	"string":     {"go-string-runes", convertString},
}

// answer builds the JSON line for one frame's encoded bytes.
func answer(line []byte, seq uint64, encoded []byte) []byte {
	line = append(line, `{"seq":`...)
	line = strconv.AppendUint(line, seq, 10)
	line = append(line, `,"ok":true,"bytes":[`...)
	for index, b := range encoded {
		if index > 0 {
			line = append(line, ',')
		}
		line = strconv.AppendUint(line, uint64(b), 10)
	}
	return append(line, "]}\n"...)
}

func fail(message string, err error) {
	fmt.Fprintln(os.Stderr, "go-encode-adapter:", message+":", err)
	os.Exit(2)
}

func main() {
	mode := "encoderune"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	chosen, known := modes[mode]
	if !known || len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: go-encode-adapter [encoderune|appendrune|string]")
		os.Exit(2)
	}

	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	hello := `{"protocol":"utf8conf/2","name":` + strconv.Quote(chosen.name) +
		`,"version":` + strconv.Quote(runtime.Version()) + `,"encode":"utf32"}` + "\n"
	writeLine(out, []byte(hello))

	var header [4]byte
	var frame bytes.Buffer
	var runes []rune
	var encoded, line []byte
	for seq := uint64(0); ; seq++ {
		if _, err := io.ReadFull(in, header[:]); err != nil {
			if err == io.EOF {
				os.Exit(0)
			}
			fail("reading a frame header", err)
		}
		length := binary.LittleEndian.Uint32(header[:])
		if length%4 != 0 {
			fail("reading a frame header", fmt.Errorf("%d bytes is not a whole number of u32 values", length))
		}
		frame.Reset()
		if _, err := io.CopyN(&frame, in, int64(length)); err != nil {
			fail("reading a frame body", err)
		}
		data := frame.Bytes()
		runes = runes[:0]
		for offset := 0; offset < len(data); offset += 4 {
			runes = append(runes, rune(int32(binary.LittleEndian.Uint32(data[offset:]))))
		}
		encoded = chosen.encode(encoded[:0], runes)
		line = answer(line[:0], seq, encoded)
		writeLine(out, line)
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
