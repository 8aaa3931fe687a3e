package emotesim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import emotesim.client.Client;
import emotesim.client.PacketIds;
import emotesim.netty.HiddenPlayerHandler;
import emotesim.netty.HiddenPlayers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Files;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * render.md §5.5 on real packet bytes: the golden packets minecraft-protocol 1.68.0's serializer wrote
 * (tests/render/golden/769.json and 775.json, minecraft/golden.mjs) for entity 42, with the packet
 * ids from emote-sim's welcome.
 */
class HiddenPlayerHandlerTest {
  static Map<Integer, PacketIds> ids;

  @BeforeAll
  static void welcome() throws Exception {
    try (ServerProcess s = ServerProcess.start("manual"); Client c = Client.connect(s.tcp)) {
      ids = c.packetIds();
    }
  }

  static JsonObject golden(int protocol) throws Exception {
    return JsonParser.parseString(Files.readString(ServerProcess.root()
        .resolve("tests/render/golden/" + protocol + ".json"))).getAsJsonObject();
  }

  static byte[] hex(JsonObject golden, String name) {
    return HexFormat.of().parseHex(golden.get(name).getAsString());
  }

  /** The bytes the handler writes for {@code in}. */
  static byte[] through(EmbeddedChannel ch, byte[] in) {
    ByteBuf b = Unpooled.wrappedBuffer(in);
    ch.writeOutbound(b);
    ByteBuf out = ch.readOutbound();
    byte[] bytes = ByteBufUtil.getBytes(out);
    out.release();
    return bytes;
  }

  @ParameterizedTest
  @ValueSource(ints = {769, 775})
  void sharedFlagsGetTheInvisibleBitAndEquipmentIsBlanked(int protocol) throws Exception {
    JsonObject g = golden(protocol);
    HiddenPlayers players = new HiddenPlayers(k -> null);
    HiddenPlayerHandler handler = new HiddenPlayerHandler(ids.get(protocol), players);
    EmbeddedChannel ch = new EmbeddedChannel(handler);

    // visibility.shared_flags: entity 42, index 0, byte 0x62 (invisible set). Without 0x20 it is
    // what a backend sends for a visible player; hidden, the handler must restore the bit.
    byte[] flags = hex(g, "visibility.shared_flags");
    int value = flags.length - 2; // ... value, 0xff terminator
    assertEquals(0x62, flags[value] & 0xff);
    byte[] visible = flags.clone();
    visible[value] &= ~0x20;
    assertArrayEquals(visible, through(ch, visible), "not hidden: unchanged");
    players.set(42, true, true);
    assertArrayEquals(flags, through(ch, visible), "hidden: 0x20 ORed in");
    assertArrayEquals(flags, through(ch, flags), "already invisible: unchanged");
    players.set(43, true, true);
    players.set(42, false, false);
    assertArrayEquals(visible, through(ch, visible), "shown again: unchanged");
    players.set(42, true, true);

    // A spawn bundle's display metadata (first index 8 or more) has no shared flags: unchanged.
    byte[] display = hex(g, "change.visible_item");
    assertArrayEquals(display, through(ch, display));

    // entity_equipment for entity 42 with a stone in the main hand: blanked to the six empty slots,
    // byte for byte what minecraft-protocol writes (visibility.blank_equipment).
    byte[] blank = hex(g, "visibility.blank_equipment");
    ByteBuf held = Unpooled.buffer();
    held.writeByte(blank[0]); // the entity_equipment id (one byte in both versions)
    held.writeByte(42);
    held.writeByte(0); // main hand, the last entry
    held.writeByte(1); // count 1
    held.writeByte(1); // item id 1
    held.writeByte(0); // no components added
    held.writeByte(0); // none removed
    byte[] withItem = ByteBufUtil.getBytes(held);
    assertEquals(ids.get(protocol).entityEquipment(), blank[0] & 0xff);
    assertArrayEquals(blank, through(ch, withItem));
    players.set(42, true, false); // hidden, equipment "real": the backend's equipment passes
    assertArrayEquals(withItem, through(ch, withItem));
    assertEquals(2, handler.rewritten());

    // Another packet (spawn_entity's id with any body) passes as the same buffer.
    ByteBuf other = Unpooled.wrappedBuffer(new byte[] {(byte) ids.get(protocol).spawnEntity(), 42, 0});
    ch.writeOutbound(other);
    ByteBuf out = ch.readOutbound();
    assertSame(other, out);
    out.release();
    ch.finishAndReleaseAll();
  }
}
