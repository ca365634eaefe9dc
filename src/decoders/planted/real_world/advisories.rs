//! Planted decoders written from security advisories and from the validation code of
//! parsers whose acceptance of ill-formed UTF-8 was reported as a weakness: the IIS and
//! Tomcat path traversals through overlong forms, Sun's Java decoder, OpenSSL's ASN.1
//! strings, yajl's string check, and the documented leniencies of Tcl, Lua, Python 2,
//! Go's JSON decoder, Windows XP's `MultiByteToWideChar` and GLib.

use super::*;

/// The decoders written from advisories and parsers' validation code.
pub const ADVISORIES: &[Entry] = &[
    Entry {
        name: "planted-iis-cve-2000-0884",
        source: "CVE-2000-0884 (IIS 4.0 and 5.0 'Web Server Folder Traversal'): overlong \
                 forms such as C0 AF, E0 80 AF and F0 80 80 AF decode to '/', and C1 1C to \
                 '\\' (the top bits of the continuation byte are not checked)",
        bugs: &[AcceptsOverlongAll, ContinuationUnchecked],
        findings: &[OVERLONG, UNCHECKED],
    },
    Entry {
        name: "planted-tomcat-cve-2008-2938",
        source: "CVE-2008-2938 (Apache Tomcat 4.1.0-4.1.37, 5.5.0-5.5.26, 6.0.0-6.0.16 with \
                 URIEncoding UTF-8): the two-byte overlong C0 AE decodes to '.', a directory \
                 traversal",
        bugs: &[AcceptsOverlong2],
        findings: &[OVERLONG_2],
    },
    Entry {
        name: "planted-java-cve-2008-5351",
        source: "CVE-2008-5351 (Sun JRE/JDK 6 Update 10 and earlier, 5.0 Update 16 and \
                 earlier): the UTF-8 decoder accepts encodings longer than the shortest form \
                 (of every length)",
        bugs: &[AcceptsOverlongAll],
        findings: &[OVERLONG],
    },
    Entry {
        name: "planted-openssl-utf8-getc",
        source: "OpenSSL 1.0.2 and 1.1.1 crypto/asn1/a_utf8.c UTF8_getc: the RFC 2279 5- and \
                 6-byte forms are decoded, a 4-byte form is accepted up to 0x1FFFFF, and \
                 surrogates are not checked (a surrogate check came with OpenSSL 3.0)",
        bugs: &[AcceptsSurrogates, AcceptsAboveMax, AcceptsFiveByte],
        findings: &[SURROGATE, ABOVE_MAX, FIVE_BYTE],
    },
    Entry {
        name: "planted-yajl-validate-utf8",
        source: "yajl yajl_string_validate_utf8 (yajl_encode.c, 1.x and 2.x): checks only the \
                 bit patterns of lead and continuation bytes, so overlong forms, surrogates \
                 and F4 90..F7 leads pass",
        bugs: &[AcceptsOverlongAll, AcceptsSurrogates, AcceptsAboveMax],
        findings: &[OVERLONG, SURROGATE, ABOVE_MAX],
    },
    Entry {
        name: "planted-tcl86-utf8",
        source: "Tcl 8.6 'encoding convertfrom utf-8': never fails; a byte that does not \
                 start a valid sequence becomes the character of its own value (Latin-1), \
                 and surrogates are decoded (strict profiles came with Tcl 8.7/9.0)",
        bugs: &[NeverReports, InvalidByteAsLatin1, AcceptsSurrogates],
        findings: &[
            LOSSY_ONLY_LATIN1,
            LATIN1_SILENT,
            SURROGATE.masked(&[NeverReports, InvalidByteAsLatin1]),
        ],
    },
    Entry {
        name: "planted-lua53-utf8",
        source: "Lua 5.3 utf8 library (utf8.len, utf8.codes): utf8_decode rejects overlong \
                 forms and values above U+10FFFF but not surrogates (Lua 5.4 rejects them \
                 unless 'lax')",
        bugs: &[AcceptsSurrogates],
        findings: &[SURROGATE],
    },
    Entry {
        name: "planted-lua54-lax",
        source: "Lua 5.4 utf8 library with lax = true (utf8.len, utf8.codes, utf8.codepoint): \
                 'lax' accepts sequences up to six bytes, values up to 0x7FFFFFFF, and \
                 surrogates",
        bugs: &[AcceptsSurrogates, AcceptsAboveMax, AcceptsFiveByte],
        findings: &[SURROGATE, ABOVE_MAX, FIVE_BYTE],
    },
    Entry {
        name: "planted-python2-utf8",
        source: "Python 2 unicode codec 'utf-8' (bugs.python.org issue 3672, 'Ill-formed \
                 surrogates not treated as errors during UTF-8 decoding', fixed in Python 3.1 \
                 only): ED A0 80 decodes to u'\\ud800'",
        bugs: &[AcceptsSurrogates],
        findings: &[SURROGATE],
    },
    Entry {
        name: "planted-go-encoding-json",
        source: "Go encoding/json Unmarshal: 'invalid UTF-8 or invalid UTF-16 surrogate pairs \
                 are not treated as an error. Instead, they are replaced by the Unicode \
                 replacement character U+FFFD', one per byte (utf8.DecodeRune's width 1)",
        bugs: &[NeverReports, PerBytePolicy],
        findings: &[LOSSY_ONLY, PER_BYTE_E0_A0],
    },
    Entry {
        name: "planted-windows-xp-multibytetowidechar",
        source: "Win32 MultiByteToWideChar(CP_UTF8) without MB_ERR_INVALID_CHARS before \
                 Windows Vista: no error is returned, illegal sequences are deleted ('Windows \
                 XP: ... MultiByteToWideChar deletes these characters'), and lone surrogate \
                 halves are decoded",
        bugs: &[NeverReports, IgnoresErrors, AcceptsSurrogates],
        findings: &[
            LOSSY_ONLY_IGNORE,
            IGNORE_SILENT,
            SURROGATE.masked(&[NeverReports, IgnoresErrors]),
        ],
    },
    Entry {
        name: "planted-glib-utf8-validate-len",
        source: "GLib g_utf8_validate with a length: 'returns FALSE if max_len is positive \
                 and any of the max_len bytes are nul' (U+0000 is rejected)",
        bugs: &[RejectsNul],
        findings: &[NUL.kind(Policy)],
    },
];
