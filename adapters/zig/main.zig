//! utf8conf adapter for Zig's std.unicode (protocol utf8conf/1).
//!
//! Decoder: the Zig standard library's `std.unicode`, as shipped with the compiler
//! that builds this file (the `ziglang` package on PyPI, or any `zig` on PATH).
//!
//! Modes (first argument):
//!   utf8   valid    std.unicode.utf8ValidateSlice(input)
//!          scalars  the input formatted with std.unicode.fmtUtf8 (which replaces
//!                   ill-formed sequences by U+FFFD, "U+FFFD Substitution of Maximal
//!                   Subparts" in its documentation), read back with Utf8View
//!   wtf8   valid    std.unicode.wtf8ValidateSlice(input) (WTF-8: UTF-8 extended to
//!                   unpaired surrogates)
//!          scalars  only when valid: the code points of Wtf8View's iterator
//!
//! Cannot report: valid_up_to and error_len (the validators return a bool, and
//! Utf8View.init reports an error without a position).
//!
//! Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
//! bytes) exactly one JSON line, flushed; exit 0 at end of input. I/O goes through
//! libc's read/write, which stay the same across Zig's standard library releases.

const std = @import("std");
const builtin = @import("builtin");
const unicode = std.unicode;

const Mode = enum { utf8, wtf8 };

fn fail(message: []const u8) noreturn {
    writeAll(2, "zig adapter: ");
    writeAll(2, message);
    writeAll(2, "\n");
    std.c.exit(2);
}

fn writeAll(fd: c_int, bytes: []const u8) void {
    var rest = bytes;
    while (rest.len > 0) {
        const written = std.c.write(fd, rest.ptr, rest.len);
        if (written <= 0) std.c.exit(2);
        rest = rest[@intCast(written)..];
    }
}

/// Reads exactly `buffer.len` bytes; false at end of input before the first byte.
fn readExactly(buffer: []u8) bool {
    var got: usize = 0;
    while (got < buffer.len) {
        const n = std.c.read(0, buffer[got..].ptr, buffer.len - got);
        if (n < 0) fail("read failed");
        if (n == 0) {
            if (got == 0) return false;
            fail("end of input inside a frame");
        }
        got += @intCast(n);
    }
    return true;
}

fn appendScalar(line: *std.array_list.Managed(u8), first: *bool, scalar: u21) !void {
    if (!first.*) try line.append(',');
    first.* = false;
    var digits: [8]u8 = undefined;
    const text = std.fmt.bufPrint(&digits, "{d}", .{scalar}) catch unreachable;
    try line.appendSlice(text);
}

fn answer(allocator: std.mem.Allocator, mode: Mode, input: []const u8, line: *std.array_list.Managed(u8)) !void {
    line.clearRetainingCapacity();
    var first = true;
    switch (mode) {
        .utf8 => {
            const valid = unicode.utf8ValidateSlice(input);
            try line.appendSlice(if (valid) "{\"valid\":true,\"scalars\":[" else "{\"valid\":false,\"scalars\":[");
            // Every input byte becomes at most one U+FFFD (3 bytes) in the output.
            const replaced = try allocator.alloc(u8, input.len * 3 + 4);
            defer allocator.free(replaced);
            const text = try std.fmt.bufPrint(replaced, "{f}", .{unicode.fmtUtf8(input)});
            const view = try unicode.Utf8View.init(text);
            var it = view.iterator();
            while (it.nextCodepoint()) |scalar| try appendScalar(line, &first, scalar);
            try line.appendSlice("]}\n");
        },
        .wtf8 => {
            if (!unicode.wtf8ValidateSlice(input)) {
                try line.appendSlice("{\"valid\":false}\n");
                return;
            }
            try line.appendSlice("{\"valid\":true,\"scalars\":[");
            var it = unicode.Wtf8View.initUnchecked(input).iterator();
            while (it.nextCodepoint()) |scalar| try appendScalar(line, &first, scalar);
            try line.appendSlice("]}\n");
        },
    }
}

pub fn main(init: std.process.Init.Minimal) !void {
    const allocator = std.heap.c_allocator;
    const args = try init.args.toSlice(allocator);
    var mode: Mode = .utf8;
    if (args.len == 2) {
        mode = std.meta.stringToEnum(Mode, args[1]) orelse fail("usage: zig-adapter [utf8|wtf8]");
    } else if (args.len > 2) {
        fail("usage: zig-adapter [utf8|wtf8]");
    }
    var hello_buffer: [200]u8 = undefined;
    const hello = try std.fmt.bufPrint(&hello_buffer, "{{\"protocol\":\"utf8conf/1\",\"name\":\"zig-{s}\",\"version\":\"zig {s} std.unicode\"}}\n", .{ @tagName(mode), builtin.zig_version_string });
    writeAll(1, hello);
    var line = std.array_list.Managed(u8).init(allocator);
    defer line.deinit();
    while (true) {
        var header: [4]u8 = undefined;
        if (!readExactly(&header)) break;
        const length = std.mem.readInt(u32, &header, .little);
        const input = try allocator.alloc(u8, length);
        defer allocator.free(input);
        _ = readExactly(input);
        try answer(allocator, mode, input, &line);
        writeAll(1, line.items);
    }
}
