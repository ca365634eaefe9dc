#!/usr/bin/env perl
# utf8conf encoder adapter for Perl (protocol utf8conf/2, encode mode).
#
# Encoders: Encode's encode() and the core function utf8::encode(). Input is UTF-32
# (`"encode":"utf32"`): each frame is u32 values, little-endian, and the string given
# to the encoder is those values as characters (pack 'W*', which is chr() of each).
# Perl strings can hold surrogates and values above U+10FFFF, so every value reaches
# the encoder as it was sent.
#
# Modes (first argument):
#   encode   Encode::encode('UTF-8', $string): Encode's strict UTF-8 with the default
#            check, FB_DEFAULT, which substitutes for what it cannot encode (the
#            substitution is U+FFFD, EF BF BD). Always ok.
#   croak    Encode::encode('UTF-8', $string, FB_CROAK): the refusing form. The
#            position comes from FB_QUIET, which makes encode() "return the portion
#            of the data that has been processed so far" and leave the rest in its
#            argument (Encode, "Handling Malformed Data"): error_at is the input length
#            minus what is left, `bytes` the portion returned. `error` is the FB_CROAK
#            message, e.g. `"\x{d800}" does not map to UTF-8`, without Perl's
#            "at FILE line N." suffix.
#   lax      Encode::encode('utf8', $string): Perl's internal, lax utf8, which writes
#            surrogates and values above U+10FFFF (and Perl's own longer forms above
#            0x7FFFFFFF) as it stores them. Always ok.
#   utf8     utf8::encode($string): "Converts in-place the character sequence to the
#            corresponding octet sequence in Perl's extended UTF-8" (perlfunc utf8),
#            the same bytes as `lax`. Always ok.
#
# Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
# bytes; N a multiple of 4) exactly one JSON line with its `seq`, flushed; exit 0 at end
# of input. A frame whose length is not a multiple of 4, or that is cut short, is a
# one-line error on stderr and exit 2. The frame is read in pieces as it arrives, so a
# header that announces more bytes than follow costs no memory.
use strict;
use warnings;
# Surrogates, noncharacters and values above U+10FFFF are the inputs under test, and
# Perl warns about each of them when it builds or encodes such a string.
no warnings qw(utf8 surrogate nonchar non_unicode portable);
use Encode ();

my %name_of_mode = (
    encode => 'perl-encode-UTF-8',
    croak  => 'perl-encode-UTF-8-FB_CROAK',
    lax    => 'perl-encode-utf8',
    utf8   => 'perl-utf8-encode',
);
my $mode = @ARGV ? $ARGV[0] : 'encode';
if (@ARGV > 1 || !exists $name_of_mode{$mode}) {
    print STDERR "usage: perl_encode.pl [encode|croak|lax|utf8]\n";
    exit 2;
}
my $strict = Encode::find_encoding('UTF-8')
    or die "perl_encode.pl: Encode has no encoding UTF-8\n";
my $lax = Encode::find_encoding('utf8')
    or die "perl_encode.pl: Encode has no encoding utf8\n";

binmode STDIN;
binmode STDOUT;
$| = 1;

sub json_string {
    my ($text) = @_;
    $text =~ s/(["\\])/\\$1/g;
    $text =~ s/([^\x20-\x7e])/sprintf('\\u%04x', ord $1)/ge;
    return qq("$text");
}

sub bytes_field {
    my ($bytes) = @_;
    return '"bytes":[' . join(',', unpack 'C*', $bytes) . ']';
}

sub read_exactly {
    my ($length) = @_;
    my $buffer = '';
    while (length $buffer < $length) {
        my $want = $length - length $buffer;
        $want = 1 << 20 if $want > 1 << 20;
        my $got = read(STDIN, $buffer, $want, length $buffer);
        die "perl_encode.pl: read failed: $!\n" unless defined $got;
        last if $got == 0;
    }
    return $buffer;
}

sub refusing {
    my ($string) = @_;
    my $left = $string;
    my $encoded = $strict->encode($left, Encode::FB_QUIET);
    return '"ok":true,' . bytes_field($encoded) if length $left == 0;
    my $error_at = length($string) - length($left);
    my $croak = '';
    eval { $strict->encode($string, Encode::FB_CROAK | Encode::LEAVE_SRC); 1 }
        or $croak = "$@";
    $croak =~ s/ at \S+ line \d+\.?\n?\z//;
    my $fields = qq("ok":false,"error_at":$error_at);
    $fields .= ',' . bytes_field($encoded) if length $encoded;
    $fields .= ',"error":' . json_string($croak) if length $croak;
    return $fields;
}

sub answer {
    my ($string) = @_;
    return refusing($string) if $mode eq 'croak';
    my $encoded;
    if ($mode eq 'encode') {
        $encoded = $strict->encode($string);
    } elsif ($mode eq 'lax') {
        $encoded = $lax->encode($string);
    } else {
        $encoded = $string;
        utf8::encode($encoded);
    }
    return '"ok":true,' . bytes_field($encoded);
}

print '{"protocol":"utf8conf/2","name":"', $name_of_mode{$mode}, '","version":',
    json_string(sprintf('perl %vd Encode %s', $^V, $Encode::VERSION)),
    qq(,"encode":"utf32"}\n);

for (my $seq = 0; ; $seq++) {
    my $header = read_exactly(4);
    exit 0 if length $header == 0;
    if (length $header != 4) {
        print STDERR "perl_encode.pl: end of input inside a frame header\n";
        exit 2;
    }
    my $length = unpack 'V', $header;
    if ($length % 4 != 0) {
        print STDERR "perl_encode.pl: a frame of $length bytes is not a whole number of u32 values\n";
        exit 2;
    }
    my $frame = read_exactly($length);
    if (length $frame != $length) {
        print STDERR "perl_encode.pl: end of input inside a frame body\n";
        exit 2;
    }
    print qq({"seq":$seq,), answer(pack 'W*', unpack 'V*', $frame), "}\n";
}
