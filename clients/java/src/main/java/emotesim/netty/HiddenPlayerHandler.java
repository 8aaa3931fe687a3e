package emotesim.netty;

import emotesim.client.PacketIds;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Applies render.md §5.5 to the backend's packets on their way to one client: for an entity that
 * {@link HiddenPlayers} says is hidden, every {@code entity_metadata} whose shared-flags entry
 * (a byte) it carries gets 0x20 (invisible) ORed in, and while its equipment is blank every
 * {@code entity_equipment} for it becomes the six slots main hand, off hand, feet, legs, chest, head,
 * all empty — the same packet emote-sim sends.
 *
 * <p>Put it where the backend's packets pass as whole, uncompressed packets ({@link ByteBuf}: the
 * packet id varint, the fields) and emote-sim's own entries do not (they are right already). The
 * packet ids are the connection's version's, from the welcome ({@code Client.packetIds()}); change
 * them with {@link #packetIds} when the connection changes version, as is the shared-flags index
 * ({@code PacketIds#playerFlagsIndex()}, 0 on every supported version). Vanilla writes metadata
 * entries in ascending index order, so a shared-flags entry is the first one; a packet whose first
 * entry has another index has none and passes unchanged, as does every other packet. A rewritten
 * packet is a new buffer; the original is released.
 */
public final class HiddenPlayerHandler extends ChannelOutboundHandlerAdapter {
  private static final int INVISIBLE = 0x20;
  private final HiddenPlayers players;
  private volatile PacketIds ids;
  private long rewritten;

  public HiddenPlayerHandler(PacketIds ids, HiddenPlayers players) {
    this.ids = ids;
    this.players = players;
  }

  public void packetIds(PacketIds ids) {
    this.ids = ids;
  }

  /** Packets rewritten so far (on this channel). */
  public long rewritten() {
    return rewritten;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
    if (msg instanceof ByteBuf b) {
      ByteBuf out = filter(b);
      if (out != b) {
        rewritten++;
        b.release();
        msg = out;
      }
    }
    ctx.write(msg, promise);
  }

  /** {@code packet} itself when it passes unchanged, else a new buffer (the caller releases the old). */
  ByteBuf filter(ByteBuf packet) {
    PacketIds v = ids;
    int start = packet.readerIndex();
    int[] id = Varint.read(packet, start);
    if (id == null || (id[0] != v.entityMetadata() && id[0] != v.entityEquipment())) {
      return packet;
    }
    int[] entity = Varint.read(packet, start + id[1]);
    if (entity == null) {
      return packet;
    }
    int fields = start + id[1] + entity[1];
    if (id[0] == v.entityMetadata()) {
      if (!players.hidden(entity[0]) || fields >= packet.writerIndex()
          || packet.getUnsignedByte(fields) != v.playerFlagsIndex()) {
        return packet;
      }
      int[] type = Varint.read(packet, fields + 1);
      int value = type == null ? -1 : fields + 1 + type[1];
      if (type == null || type[0] != v.byteSerializer() || value >= packet.writerIndex()) {
        return packet;
      }
      byte flags = packet.getByte(value);
      if ((flags & INVISIBLE) != 0) {
        return packet;
      }
      ByteBuf copy = packet.copy();
      copy.setByte(value - start, flags | INVISIBLE);
      return copy;
    }
    if (!players.blankEquipment(entity[0])) {
      return packet;
    }
    ByteBuf out = packet.alloc().buffer(id[1] + entity[1] + 12);
    Varint.write(out, id[0]);
    Varint.write(out, entity[0]);
    for (int slot = 0; slot < 6; slot++) {
      out.writeByte(slot < 5 ? slot | 0x80 : slot);
      out.writeByte(0); // an empty slot: item count 0
    }
    return out;
  }
}
