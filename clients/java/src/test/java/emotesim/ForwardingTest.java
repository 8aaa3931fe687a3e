package emotesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
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
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Two viewers of different versions behind the forwarder, against a real server: what each
 * player's channel received equals, byte for byte and in order, the frames' entries listing it
 * (render.md §6), on the manual and the realtime clock; and a server switch (the connection leaves
 * play) answered with a real {@code render_reset}. The bytes of each scenario are written to
 * target/forwarded/, which minecraft/test/java-forwarded.mjs decodes with minecraft-protocol
 * (scripts/test-minecraft): every packet, in order, applied to a model client, which must end
 * holding exactly the displays {@code state.get} lists.
 */
class ForwardingTest {
  static final Path OUT = Path.of("target", "forwarded");
  /** config/emote-sim.json's render.entity_id_base: display handle h is entity base + h. */
  static final long ENTITY_ID_BASE = 1_000_000_000L;

  /** A server, a client on a pump, alice (769) and bob (775) on EmbeddedChannels behind a forwarder. */
  static final class Rig implements AutoCloseable {
    final Pump pump = new Pump();
    final ServerProcess server;
    final Client client;
    final Map<Integer, PacketIds> ids;
    final Map<String, TestPlayer> sinks = new LinkedHashMap<>();
    final Map<String, Integer> entityIds = Map.of("alice", 101, "bob", 102);
    final Forwarder forwarder;
    final HiddenPlayers hidden = new HiddenPlayers(entityIds::get);
    final List<Frame> frames = new ArrayList<>();
    /** Per player, every packet its channel received so far (hex), and where its client lost its world. */
    final Map<String, List<String>> received = new LinkedHashMap<>();
    final Map<String, List<Integer>> lostWorld = new LinkedHashMap<>();

    Rig(String clock) throws Exception {
      server = ServerProcess.start(clock);
      client = Client.connect(server.tcp, new Client.Options().listenerExecutor(pump));
      ids = client.packetIds();
      Forwarder[] fw = new Forwarder[1];
      forwarder = fw[0] = new Forwarder(sinks::get, Forwarder.Recovery.of(client), 10_000);
      sinks.put("alice", new TestPlayer(() -> fw[0], "alice", ids.get(769).bundleDelimiter()));
      sinks.put("bob", new TestPlayer(() -> fw[0], "bob", ids.get(775).bundleDelimiter()));
      for (String p : sinks.keySet()) {
        received.put(p, new ArrayList<>());
        lostWorld.put(p, new ArrayList<>());
      }
      client.onFrame(frames::add);
      client.onFrame(forwarder);
      client.onFrame(hidden);
      pump.await(client.subscribe(Subscription.of().packets(true)));
      pump.await(client.join("alice", PlayerState.of().position(0, 64, 0).protocol(769).entityId(101).name("alice")));
      pump.await(client.join("bob", PlayerState.of().position(3, 64, 0).yaw(90).protocol(775).entityId(102).name("bob")));
    }

    /** Run what the channels' event loops have queued and collect what they wrote. */
    void drain() {
      pump.runAll();
      sinks.forEach((k, p) -> received.get(k).addAll(p.drain()));
    }

    /** Every frame up to now came (a ping's reply follows them), and the channels wrote them. */
    void settle() throws Exception {
      pump.await(client.ping());
      drain();
    }

    /** The entries of the frames from tick {@code from} on that list {@code player}, as hex. */
    List<String> expected(String player, long from) {
      List<String> out = new ArrayList<>();
      for (Frame f : frames) {
        if (f.tick() >= from) {
          f.packetsFor(player).forEach(p -> out.add(ByteBufUtil.hexDump(p.data())));
        }
      }
      return out;
    }

    /** The entity ids of the displays state.get lists now: what every viewer (all in range) holds. */
    JsonArray displaysNow() throws Exception {
      JsonObject state = pump.await(client.state(null));
      TreeSet<Long> out = new TreeSet<>();
      for (JsonElement d : state.getAsJsonArray("displays")) {
        out.add(ENTITY_ID_BASE + d.getAsJsonObject().get("handle").getAsLong());
      }
      JsonArray a = new JsonArray();
      out.forEach(a::add);
      return a;
    }

    /** Write the scenario for minecraft/test/java-forwarded.mjs. */
    void write(String name, String description, boolean bobHiddenFromAlice) throws Exception {
      JsonArray entities = displaysNow();
      JsonObject out = new JsonObject();
      out.addProperty("scenario", description);
      JsonArray players = new JsonArray();
      for (String p : sinks.keySet()) {
        List<String> got = received.get(p);
        PacketIds v = ids.get(p.equals("alice") ? 769 : 775);
        assertTrue(got.stream().anyMatch(h -> id(h) == v.spawnEntity()), "a spawn for " + p);
        JsonObject o = new JsonObject();
        o.addProperty("player", p);
        o.addProperty("protocol", v.protocol());
        o.addProperty("entity_id", entityIds.get(p));
        JsonArray packets = new JsonArray();
        got.forEach(packets::add);
        o.add("packets", packets);
        JsonArray lost = new JsonArray();
        lostWorld.get(p).forEach(lost::add);
        o.add("lost_world", lost);
        o.add("entities_at_end", entities);
        players.add(o);
      }
      out.add("players", players);
      JsonArray hiddenAtEnd = new JsonArray();
      if (bobHiddenFromAlice) {
        JsonArray pair = new JsonArray();
        pair.add("alice");
        pair.add("bob");
        hiddenAtEnd.add(pair);
      }
      out.add("hidden_at_end", hiddenAtEnd);
      Files.createDirectories(OUT);
      Files.writeString(OUT.resolve(name + ".json"),
          new GsonBuilder().setPrettyPrinting().create().toJson(out) + "\n");
    }

    @Override
    public void close() throws Exception {
      client.close();
      server.close();
    }
  }

  @Test
  void twoViewersReceiveExactlyTheirEntries() throws Exception {
    try (Rig r = new Rig("manual")) {
      Client c = r.client;
      r.pump.await(c.step(1));
      r.pump.await(c.play("alice", "sample:wave"));
      r.pump.await(c.step(5));
      assertTrue(r.hidden.hidden(101) && r.hidden.blankEquipment(101), "sample:wave hides its player");
      r.pump.await(c.play("bob", "sample:wave"));
      r.pump.await(c.step(10));
      r.pump.await(c.stop("alice"));
      r.pump.await(c.step(3));
      assertFalse(r.hidden.hidden(101));
      assertTrue(r.hidden.hidden(102));
      r.settle();
      for (String p : r.sinks.keySet()) {
        assertFalse(r.expected(p, 0).isEmpty(), p + " got no entries");
        assertEquals(r.expected(p, 0), r.received.get(p), p);
        assertTrue(r.received.get(p).stream().anyMatch(h -> id(h) == r.ids.get(p.equals("alice") ? 769 : 775)
            .entityMetadata()));
      }
      // bob saw alice hidden: her blank equipment (render.md §5.5) reached his channel.
      String blank = ByteBufUtil.hexDump(new byte[] {(byte) r.ids.get(775).entityEquipment(), 101});
      assertTrue(r.received.get("bob").stream().anyMatch(h -> h.startsWith(blank)),
          "bob's channel has alice's blank equipment");
      assertEquals(0, r.forwarder.dropped());
      assertEquals(0, r.forwarder.resets());
      r.write("two-viewers", "alice (769) and bob (775) 3 blocks apart each play sample:wave; "
          + "alice stops; 19 ticks, manual clock", true);
    }
  }

  /**
   * alice's connection leaves play mid-emote (a server switch behind a proxy: her client drops
   * every entity) while the emotes go on; back in play, the forwarder asks the real server for
   * {@code render_reset}, skips what came before its tick and forwards the re-spawned scene.
   */
  @Test
  void aServerSwitchIsAnsweredWithARenderReset() throws Exception {
    try (Rig r = new Rig("manual")) {
      Client c = r.client;
      TestPlayer alice = r.sinks.get("alice");
      r.pump.await(c.play("alice", "sample:wave"));
      r.pump.await(c.play("bob", "sample:wave"));
      r.pump.await(c.step(6));
      r.settle();
      int before = r.received.get("alice").size();
      assertFalse(r.received.get("alice").isEmpty());

      alice.play = false; // configuration: the client forgets its world
      alice.tracker.reset();
      r.lostWorld.get("alice").add(before);
      r.pump.await(c.step(4));
      r.settle();
      assertEquals(before, r.received.get("alice").size(), "nothing written outside play");
      assertTrue(r.forwarder.dropped() > 0, "the frames of those ticks had entries for alice");
      assertEquals(0, r.forwarder.resets(), "no reset while still out of play");

      alice.play = true;
      r.forwarder.playResumed("alice");
      r.drain(); // the event loop asks for the reset
      assertEquals(1, r.forwarder.resets());
      r.settle(); // its reply came before the ping's
      long resetTick = c.tick();
      r.pump.await(c.step(4));
      r.pump.await(c.stop("alice"));
      r.pump.await(c.step(2));
      r.settle();

      List<String> after = r.received.get("alice").subList(before, r.received.get("alice").size());
      assertEquals(r.expected("alice", resetTick), after,
          "after the switch alice gets exactly the frames from the reset's tick on");
      assertEquals(0, id(after.get(0)), "the reset's frame starts with a spawn bundle");
      assertEquals(r.expected("bob", 0), r.received.get("bob"), "bob is not disturbed");
      assertEquals(1, r.forwarder.resets());
      r.write("server-switch", "alice (769) and bob (775) play sample:wave; alice's connection "
          + "leaves play for 4 ticks (her client loses its world), then render_reset; alice stops",
          true); // render.md §4 rule 4: the reset sends bob's hidden-player packets to alice again
    }
  }

  @Test
  void twoViewersOnTheRealtimeClock() throws Exception {
    try (Rig r = new Rig("realtime")) {
      Client c = r.client;
      r.pump.await(c.play("alice", "sample:wave"));
      r.pump.await(c.play("bob", "sample:wave"));
      long started = c.tick();
      while (c.tick() < started + 15) { // the clock runs on its own; a ping's reply names its tick
        ServerProcess.sleep(50);
        r.pump.await(c.ping());
      }
      r.pump.await(c.stopAll());
      // Every display removed and the removal forwarded: nothing left to hold.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!r.displaysNow().isEmpty() && System.nanoTime() < deadline) {
        ServerProcess.sleep(50);
      }
      r.settle();
      for (String p : r.sinks.keySet()) {
        assertFalse(r.expected(p, 0).isEmpty(), p + " got no entries");
        assertEquals(r.expected(p, 0), r.received.get(p), p);
      }
      assertTrue(r.frames.size() >= 10, "frames of the ticks that ran: " + r.frames.size());
      assertEquals(0, r.forwarder.dropped());
      r.write("realtime", "alice (769) and bob (775) play sample:wave on the realtime clock; "
          + "everything stops after 15 ticks", false);
    }
  }

  /** The packet id of a hex dump (the ids rendering uses are below 128: one byte). */
  static int id(String hex) {
    return HexFormat.fromHexDigits(hex.substring(0, 2));
  }
}
