package emotesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import emotesim.client.Client;
import emotesim.client.Frame;
import emotesim.client.PacketEntry;
import emotesim.client.PacketIds;
import emotesim.client.PlayerState;
import emotesim.client.Subscription;
import emotesim.netty.Forwarder;
import emotesim.netty.HiddenPlayers;
import io.netty.buffer.ByteBufUtil;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two viewers of different versions behind the forwarder, against a real server: what each
 * player's channel received equals, byte for byte and in order, the frames' entries listing it
 * (render.md §6). The bytes are written to target/forwarded/two-viewers.json, which
 * minecraft/test/java-forwarded.mjs decodes with minecraft-protocol (scripts/test-minecraft).
 */
class ForwardingTest {
  static final Path OUT = Path.of("target", "forwarded", "two-viewers.json");

  @Test
  void twoViewersReceiveExactlyTheirEntries() throws Exception {
    Pump pump = new Pump();
    try (ServerProcess s = ServerProcess.start("manual");
         Client c = Client.connect(s.tcp, new Client.Options().listenerExecutor(pump))) {
      Map<Integer, PacketIds> ids = c.packetIds();
      Map<String, TestPlayer> sinks = new LinkedHashMap<>();
      Forwarder[] fw = new Forwarder[1];
      fw[0] = new Forwarder(sinks::get, Forwarder.Recovery.of(c), 10_000);
      sinks.put("alice", new TestPlayer(() -> fw[0], "alice", ids.get(769).bundleDelimiter()));
      sinks.put("bob", new TestPlayer(() -> fw[0], "bob", ids.get(775).bundleDelimiter()));
      Map<String, Integer> entityIds = Map.of("alice", 101, "bob", 102);
      HiddenPlayers hidden = new HiddenPlayers(entityIds::get);
      List<Frame> frames = new ArrayList<>();
      c.onFrame(frames::add);
      c.onFrame(fw[0]);
      c.onFrame(hidden);

      pump.await(c.subscribe(Subscription.of().packets(true)));
      pump.await(c.join("alice", PlayerState.of().position(0, 64, 0).protocol(769).entityId(101).name("alice")));
      pump.await(c.join("bob", PlayerState.of().position(3, 64, 0).yaw(90).protocol(775).entityId(102).name("bob")));
      pump.await(c.step(1));
      pump.await(c.play("alice", "sample:wave"));
      pump.await(c.step(5));
      assertTrue(hidden.hidden(101) && hidden.blankEquipment(101), "sample:wave hides its player");
      pump.await(c.play("bob", "sample:wave"));
      pump.await(c.step(10));
      pump.await(c.stop("alice"));
      pump.await(c.step(3));
      assertFalse(hidden.hidden(101));
      assertTrue(hidden.hidden(102));
      pump.await(c.ping()); // every frame of the steps came before this reply
      pump.runAll();

      JsonObject out = new JsonObject();
      out.addProperty("scenario", "alice (769) and bob (775) 3 blocks apart each play sample:wave; "
          + "alice stops; 19 ticks");
      JsonArray players = new JsonArray();
      for (var e : sinks.entrySet()) {
        List<String> expected = new ArrayList<>();
        int protocol = 0;
        for (Frame f : frames) {
          for (PacketEntry p : f.packetsFor(e.getKey())) {
            expected.add(ByteBufUtil.hexDump(p.data()));
            protocol = p.protocol();
          }
        }
        List<String> got = e.getValue().drain();
        assertFalse(expected.isEmpty(), e.getKey() + " got no entries");
        assertEquals(expected, got, e.getKey());
        PacketIds v = ids.get(protocol);
        assertTrue(got.stream().anyMatch(h -> id(h) == v.spawnEntity()), "a spawn for " + e.getKey());
        assertTrue(got.stream().anyMatch(h -> id(h) == v.entityMetadata()));
        JsonObject p = new JsonObject();
        p.addProperty("player", e.getKey());
        p.addProperty("protocol", protocol);
        p.addProperty("entity_id", entityIds.get(e.getKey()));
        JsonArray packets = new JsonArray();
        got.forEach(packets::add);
        p.add("packets", packets);
        players.add(p);
      }
      // bob saw alice hidden: her blank equipment (render.md §5.5) reached his channel.
      String blank = ByteBufUtil.hexDump(new byte[] {(byte) ids.get(775).entityEquipment(), 101});
      assertTrue(players.get(1).getAsJsonObject().getAsJsonArray("packets").toString().contains(blank));
      out.add("players", players);
      Files.createDirectories(OUT.getParent());
      Files.writeString(OUT, new GsonBuilder().setPrettyPrinting().create().toJson(out) + "\n");
      assertEquals(0, fw[0].dropped());
      assertEquals(0, fw[0].resets());
    }
  }

  /** The packet id of a hex dump (the ids rendering uses are below 128: one byte). */
  static int id(String hex) {
    return HexFormat.fromHexDigits(hex.substring(0, 2));
  }
}
