#!/usr/bin/env perl
# utf8conf adapter for Perl's Encode module (protocol utf8conf/1).
#
# Decoder: Encode's decode(), through the encoding object of find_encoding().
#
# Modes (first argument):
#   strict   encoding 'UTF-8': Encode's strict UTF-8, which rejects surrogates,
#            values above U+10FFFF and the old 5/6-byte forms.
#   lax      encoding 'utf8': Perl's internal, lax utf8, which accepts surrogates,
#            values above U+10FFFF and Perl's extended longer forms.
#
# In both modes each field comes from the decoder as follows:
#   valid        decode($bytes, FB_QUIET) consumed the whole input. FB_QUIET makes
#                decode return what it decoded before the first malformed sequence
#                and leave the rest of the input in its argument.
#   valid_up_to  input length minus the length FB_QUIET left unconsumed, i.e. where
#                the decoder stopped.
#   error_len    the number of bytes quoted in the croak message of
#                decode($bytes, FB_CROAK | LEAVE_SRC), which names the malformed
#                sequence it rejected, e.g. `UTF-8 "\xE4\xBD" does not map to
#                Unicode`. Absent if the message quotes no bytes. Never null: Encode
#                does not distinguish "ended inside a sequence that could still
#                complete" from "malformed" (STOP_AT_PARTIAL does not change what
#                FB_QUIET or FB_CROAK report for a single buffer).
#   error        that croak message, without Perl's "at FILE line N." suffix.
#   scalars      ord() of each character of decode($bytes) with the default check
#                (FB_DEFAULT), which substitutes U+FFFD for each malformed sequence.
#                In lax mode these can be surrogates or exceed 0x10FFFF: reported as
#                decoded, not corrected.
#
# Cannot report: errors after the first in valid_up_to/error_len; a null error_len.
#
# The croak message quotes bytes, not an offset, so the offset comes from FB_QUIET.
#
# Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
# bytes) exactly one JSON line, flushed; exit 0 at end of input.
use strict;
use warnings;
use Encode ();

my %encoding_of_mode = (strict => 'UTF-8', lax => 'utf8');
my $mode = @ARGV ? $ARGV[0] : 'strict';
if (@ARGV > 1 || !exists $encoding_of_mode{$mode}) {
    print STDERR "usage: perl.pl [strict|lax]\n";
    exit 2;
}
my $encoding = Encode::find_encoding($encoding_of_mode{$mode})
    or die "perl.pl: Encode has no encoding $encoding_of_mode{$mode}\n";

binmode STDIN;
binmode STDOUT;
$| = 1;

sub json_string {
    my ($text) = @_;
    $text =~ s/(["\\])/\\$1/g;
    $text =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge;
    # Anything non-ASCII (the message only quotes bytes as \xHH, so this is
    # defensive) is written as JSON escapes, keeping the line pure ASCII.
    $text =~ s/([^\x00-\x7f])/sprintf('\\u%04x', ord $1)/ge;
    return qq("$text");
}

sub scalars_json {
    my ($text) = @_;
    return '[' . join(',', map { ord } split //, $text) . ']';
}

sub read_exactly {
    my ($length) = @_;
    my $buffer = '';
    while (length $buffer < $length) {
        my $got = read(STDIN, $buffer, $length - length $buffer, length $buffer);
        die "perl.pl: read failed: $!\n" unless defined $got;
        last if $got == 0;
    }
    return $buffer;
}

sub answer {
    my ($bytes) = @_;
    my $unconsumed = $bytes;
    my $decoded = $encoding->decode($unconsumed, Encode::FB_QUIET);
    if (length $unconsumed == 0) {
        return '{"valid":true,"scalars":' . scalars_json($decoded) . '}';
    }
    my $valid_up_to = length($bytes) - length($unconsumed);
    my $croak = '';
    eval { $encoding->decode($bytes, Encode::FB_CROAK | Encode::LEAVE_SRC); 1 }
        or $croak = "$@";
    $croak =~ s/ at \S+ line \d+\.?\n?\z//;
    my $fields = qq({"valid":false,"valid_up_to":$valid_up_to);
    if ($croak =~ /"((?:\\x[0-9A-Fa-f]{2})+)"/) {
        my $error_len = () = $1 =~ /\\x/g;
        $fields .= qq(,"error_len":$error_len);
    }
    $fields .= ',"error":' . json_string($croak) if length $croak;
    my $replaced = $encoding->decode($bytes);
    return $fields . ',"scalars":' . scalars_json($replaced) . '}';
}

print '{"protocol":"utf8conf/1","name":"perl-', $mode, '","version":',
    json_string(sprintf('perl %vd Encode %s', $^V, $Encode::VERSION)), "}\n";

while (1) {
    my $header = read_exactly(4);
    exit 0 if length $header == 0;
    if (length $header != 4) {
        print STDERR "perl.pl: end of input inside a frame header\n";
        exit 2;
    }
    my $length = unpack 'V', $header;
    my $bytes = read_exactly($length);
    if (length $bytes != $length) {
        print STDERR "perl.pl: end of input inside a frame body\n";
        exit 2;
    }
    print answer($bytes), "\n";
}
