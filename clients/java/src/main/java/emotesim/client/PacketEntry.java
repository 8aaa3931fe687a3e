package emotesim.client;

import java.util.List;

/**
 * One packet entry of a frame (render.md §6): the packet id and fields, uncompressed and without a
 * length prefix, for the listed players (keys, in join order) whose viewers use {@code protocol}.
 * {@code data} is shared: do not modify it. With a subscription's {@code audiences} (render.md §6.1)
 * {@code to} is the frame's audience the entry names, the same list for every entry naming it.
 */
public record PacketEntry(List<String> to, int protocol, byte[] data) {
  /** The packet id (the leading varint of {@code data}). */
  public int packetId() {
    int value = 0;
    for (int i = 0; i < 5 && i < data.length; i++) {
      value |= (data[i] & 0x7f) << (7 * i);
      if ((data[i] & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalStateException("packet entry without a complete packet id varint");
  }
}
