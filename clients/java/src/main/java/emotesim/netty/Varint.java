package emotesim.netty;

import io.netty.buffer.ByteBuf;

/** Minecraft's varint (at most 5 bytes, little-endian groups of 7 bits). */
final class Varint {
  private Varint() {}

  /** The varint at {@code index} as {value, length}; null when it is incomplete or too long. */
  static int[] read(ByteBuf b, int index) {
    int value = 0;
    for (int i = 0; i < 5; i++) {
      if (index + i >= b.writerIndex()) {
        return null;
      }
      byte x = b.getByte(index + i);
      value |= (x & 0x7f) << (7 * i);
      if ((x & 0x80) == 0) {
        return new int[] {value, i + 1};
      }
    }
    return null;
  }

  static void write(ByteBuf b, int value) {
    while ((value & ~0x7f) != 0) {
      b.writeByte((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    b.writeByte(value);
  }
}
