package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.charset.StandardCharsets;

/**
 * Primitive field codecs shared by all messages. Strings are a uint16 byte length followed by UTF-8.
 * Readers throw {@link MalformedMessageException} on anything a well-behaved peer cannot send.
 */
public final class Wire {
    /** Longest string a message field may hold, in bytes. */
    public static final int MAX_STRING_BYTES = 0xffff;

    private Wire() {
    }

    public static void writeString(ByteBuf buf, String s) {
        // Cheap bound first: a UTF-16 char never takes more than 3 UTF-8 bytes.
        if (s.length() * 3L > MAX_STRING_BYTES && ByteBufUtil.utf8Bytes(s) > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("string field longer than " + MAX_STRING_BYTES + " bytes");
        }
        int lenAt = buf.writerIndex();
        buf.writeShort(0);
        int n = ByteBufUtil.writeUtf8(buf, s);
        buf.setShort(lenAt, n);
    }

    public static String readString(ByteBuf buf) {
        int n = readUnsignedShort(buf);
        need(buf, n);
        String s = buf.toString(buf.readerIndex(), n, StandardCharsets.UTF_8);
        buf.skipBytes(n);
        return s;
    }

    /** Slots of {@link #readCommonString}'s cache (a power of two). */
    private static final int COMMON_SLOTS = 64;
    /** Longest string {@link #readCommonString} caches, in bytes. */
    private static final int COMMON_MAX_BYTES = 64;
    /**
     * Recently read short ASCII strings, by a hash of their bytes. Shared by every thread without a
     * lock: slots hold immutable strings and a reference write is atomic, so a reader finds either
     * the string it checks byte for byte or another one (a miss).
     */
    private static final String[] COMMON = new String[COMMON_SLOTS];

    /**
     * {@link #readString}, for fields with few distinct values (owners, groups): a short ASCII string
     * read before is returned again instead of a new copy, so decoding a FileStatus does not allocate
     * them on every answer.
     */
    public static String readCommonString(ByteBuf buf) {
        int n = readUnsignedShort(buf);
        need(buf, n);
        int at = buf.readerIndex();
        if (n == 0 || n > COMMON_MAX_BYTES) {
            String s = n == 0 ? "" : buf.toString(at, n, StandardCharsets.UTF_8);
            buf.skipBytes(n);
            return s;
        }
        int h = n;
        for (int i = 0; i < n; i++) {
            h = 31 * h + buf.getByte(at + i);
        }
        int slot = (h ^ (h >>> 16)) & (COMMON_SLOTS - 1);
        String cached = COMMON[slot];
        if (cached != null && sameAscii(cached, buf, at, n)) {
            buf.skipBytes(n);
            return cached;
        }
        String s = buf.toString(at, n, StandardCharsets.UTF_8);
        buf.skipBytes(n);
        if (s.length() == n) { // ASCII only: one byte per char, so the byte check above holds for it
            COMMON[slot] = s;
        }
        return s;
    }

    private static boolean sameAscii(String s, ByteBuf buf, int at, int n) {
        if (s.length() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) != buf.getByte(at + i)) {
                return false;
            }
        }
        return true;
    }

    public static void writeBoolean(ByteBuf buf, boolean b) {
        buf.writeByte(b ? 1 : 0);
    }

    public static boolean readBoolean(ByteBuf buf) {
        int v = readUnsignedByte(buf);
        if (v > 1) {
            throw new MalformedMessageException("boolean field holds " + v);
        }
        return v == 1;
    }

    public static int readUnsignedByte(ByteBuf buf) {
        need(buf, 1);
        return buf.readUnsignedByte();
    }

    public static int readUnsignedShort(ByteBuf buf) {
        need(buf, 2);
        return buf.readUnsignedShort();
    }

    public static int readInt(ByteBuf buf) {
        need(buf, 4);
        return buf.readInt();
    }

    /** Reads an int that must lie in [min, max]. */
    public static int readInt(ByteBuf buf, int min, int max, String field) {
        int v = readInt(buf);
        if (v < min || v > max) {
            throw new MalformedMessageException(field + " = " + v + " outside " + min + ".." + max);
        }
        return v;
    }

    public static long readLong(ByteBuf buf) {
        need(buf, 8);
        return buf.readLong();
    }

    /** Throws unless {@code n} more bytes are readable. */
    public static void need(ByteBuf buf, int n) {
        if (buf.readableBytes() < n) {
            throw new MalformedMessageException("message truncated: needs " + n + " more bytes, has "
                    + buf.readableBytes());
        }
    }

    /** Throws unless the buffer has been read completely (trailing garbage is malformed). */
    public static void end(ByteBuf buf) {
        if (buf.isReadable()) {
            throw new MalformedMessageException(buf.readableBytes() + " unexpected trailing bytes");
        }
    }
}
