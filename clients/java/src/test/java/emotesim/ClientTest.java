package emotesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import emotesim.client.Client;
import emotesim.client.EmoteSimException;
import emotesim.client.ErrorCodes;
import emotesim.client.Frame;
import emotesim.client.PacketEntry;
import emotesim.client.PacketIds;
import emotesim.client.PlayResult;
import emotesim.client.PlayerState;
import emotesim.client.Subscription;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The client against a real emote-sim serve (manual clock unless said). */
class ClientTest {
  static ServerProcess server;

  @BeforeAll
  static void start() throws Exception {
    server = ServerProcess.start("manual");
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  static Client connect(String address) throws Exception {
    return Client.connect(address, new Client.Options().timeout(Duration.ofSeconds(10)));
  }

  static <T> T get(Future<T> f) throws Exception {
    return f.get(15, TimeUnit.SECONDS);
  }

  /** The exception a failed future failed with. */
  static Throwable failure(Future<?> f) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(15, TimeUnit.SECONDS));
    return Client.cause(e);
  }

  static EmoteSimException error(String code, Future<?> f) {
    EmoteSimException e = assertInstanceOf(EmoteSimException.class, failure(f));
    assertEquals(code, e.code(), e.getMessage());
    assertTrue(ErrorCodes.known(e.code()));
    return e;
  }

  @Test
  void welcomeCarriesThePacketIdsOfEverySupportedVersion() throws Exception {
    try (Client c = connect(server.tcp)) {
      assertTrue(c.manualClock());
      Map<Integer, PacketIds> ids = c.packetIds();
      assertEquals(List.of(767, 768, 769, 770, 771, 772, 773, 774, 775), new ArrayList<>(ids.keySet()));
      // minecraft-data 3.119.0's numbers (render.md §1), as tests/render/golden/ encodes them.
      assertEquals(new PacketIds(769, "1.21.4", 0, 1, 0x5d, 0x47, 0x60, 0, 0), ids.get(769));
      assertEquals(new PacketIds(775, "26.1", 0, 1, 0x63, 0x4d, 0x66, 0, 0), ids.get(775));
    }
  }

  @Test
  void everyOpTyped() throws Exception {
    try (Client c = connect(server.tcp)) {
      List<Frame> frames = new CopyOnWriteArrayList<>();
      c.onFrame(frames::add);
      get(c.ping());
      get(c.subscribe(Subscription.of().events(List.of("playback.", "partner.", "player.visibility"))
          .players(List.of("op-a", "op-b")).dimensions(List.of("minecraft:overworld")).matrix(true)));
      get(c.join("op-a", PlayerState.of().position(1000, 64, 0).yaw(0).pitch(0).protocol(769)
          .entityId(4242).viewDistance(8).name("Alice").glowing(false)
          .permissions(Map.of("emote.default", true))));
      assertEquals(List.of("op-a"), c.players());
      long applied = get(c.update("op-a", PlayerState.of().yaw(10)));
      assertTrue(applied >= 0);
      get(c.event("op-a", "jump", new JsonObject()));
      JsonObject damage = new JsonObject();
      damage.addProperty("amount", 1.5);
      get(c.event("op-a", "damage", damage));
      // render_reset, directly and as the forwarder asks for it; render.resync of one player as the
      // forwarder asks past its bound: each completes with the tick it was applied in.
      assertEquals(get(c.ping().thenApply(v -> c.tick())), get(c.renderReset("op-a")));
      assertEquals(c.tick(), get(emotesim.netty.Forwarder.Recovery.of(c).renderReset("op-a")));
      assertEquals(c.tick(), get(emotesim.netty.Forwarder.Recovery.of(c).resync("op-a")));

      List<JsonObject> emotes = get(c.listEmotes());
      assertTrue(emotes.stream().anyMatch(e -> e.get("id").getAsString().equals("sample:wave")));
      assertTrue(get(c.info("sample:handshake")).get("two_player").getAsBoolean());

      JsonObject doc = JsonParser.parseString(Files.readString(
          ServerProcess.root().resolve("config/emotes/wave/sample.wave.json"))).getAsJsonObject();
      doc.addProperty("id", "java:blink");
      doc.getAsJsonObject("settings").addProperty("cooldown", "0t");
      assertEquals("java:blink", get(c.register(doc)));

      PlayResult r = get(c.play("op-a", "sample:wave"));
      assertEquals(PlayResult.Role.SOLO, r.role());
      assertEquals("sample:wave", r.emote());
      long tick = get(c.step(2));
      assertTrue(tick >= 2);
      JsonObject state = get(c.state("op-a"));
      assertEquals("op-a", state.getAsJsonArray("players").get(0).getAsJsonObject().get("player").getAsString());
      assertFalse(state.getAsJsonArray("displays").isEmpty());
      JsonObject page = get(c.statePage(1, null));
      assertEquals(1, page.getAsJsonArray("players").size());
      assertEquals(1L, get(c.resync(List.of("op-a"))));
      assertEquals(r.session(), get(c.stop("op-a")));
      EmoteSimException cooldown = error("cooldown", c.play("op-a", "sample:wave"));
      assertTrue(cooldown.remainingTicks().orElse(0) > 0, cooldown.getMessage());
      assertEquals(1L, get(c.cooldownClear("op-a")));
      get(c.play("op-a", "java:blink"));
      assertEquals(1L, get(c.stopAll()));
      get(c.unregister("java:blink"));

      JsonArray set = new JsonArray();
      JsonObject block = new JsonObject();
      JsonArray at = new JsonArray();
      at.add(1000);
      at.add(70);
      at.add(0);
      block.add("at", at);
      block.addProperty("block", "solid");
      set.add(block);
      assertEquals(1L, get(c.worldBlocks(null, set)));
      assertEquals(1L, get(c.worldClear(null)));

      // An offer and its acceptance (a two-player emote).
      get(c.cooldownClear(null));
      get(c.update("op-a", PlayerState.of().yaw(0)));
      get(c.join("op-b", PlayerState.of().position(1000, 64, 1.2).yaw(180).protocol(775).entityId(4243)
          .name("Bob").skinTextures(Map.of("default", new String[] {"dGV4dHVyZXM=", null}))));
      PlayResult offer = get(c.play("op-a", "sample:handshake"));
      assertEquals(PlayResult.Role.INITIATOR, offer.role());
      assertEquals(null, offer.unmatched()); // no other offer was open
      get(c.step(5));
      // Ten blocks away, op-c cannot join op-a's offer: it makes its own, and the reply says why.
      get(c.join("op-c", PlayerState.of().position(1010, 64, 0).yaw(90)));
      PlayResult far = get(c.play("op-c", "sample:handshake"));
      assertEquals(PlayResult.Role.INITIATOR, far.role());
      assertEquals(new PlayResult.Unmatched(offer.session(), "op-a", "too_far"), far.unmatched());
      get(c.leave("op-c"));
      assertEquals(PlayResult.Role.PARTNER, get(c.play("op-b", "sample:handshake")).role());
      get(c.step(60));
      get(c.stopAll());
      get(c.step(1));

      JsonObject reloaded = get(c.reload(false));
      assertTrue(reloaded.get("loaded").getAsInt() > 0);
      get(c.leave("op-a"));
      get(c.leave("op-b"));
      assertEquals(List.of(), c.players());
      get(c.ping()); // the frames of the steps above came before this reply

      Set<String> types = new java.util.HashSet<>();
      for (Frame f : frames) {
        f.events().forEach(e -> types.add(e.get("type").getAsString()));
      }
      assertTrue(types.containsAll(List.of("playback.started", "playback.stopped", "player.visibility",
          "partner.reserved", "partner.matched")), types.toString());
      long started = frames.stream().flatMap(f -> f.events("playback.started").stream())
          .filter(e -> e.get("session").getAsLong() == r.session()).count();
      assertEquals(1, started);
    }
  }

  @Test
  void errorsAreTypedWithCodeAndPath() throws Exception {
    try (Client c = connect(server.tcp);
         Client obs = Client.connect(server.tcp, new Client.Options().role("observer"))) {
      error("unknown_op", c.request("nope", new JsonObject()));
      JsonObject join = new JsonObject();
      join.addProperty("player", "err-x");
      assertEquals("$.position", error("bad_request", c.request("player.join", join)).path());
      assertEquals("$.protocol", error("bad_request",
          c.join("err-y", PlayerState.of().position(0, 64, 0).protocol(12))).path());
      error("forbidden", obs.join("err-x", PlayerState.of().position(0, 64, 0)));
      // protocol.md §3: the error names what it refers to; text for a person, detail for a developer.
      EmoteSimException nobody = error("unknown_player", c.play("nobody", "sample:wave"));
      assertEquals(List.of("emote.play", "nobody", "sample:wave", "Player is not online."),
          List.of(nobody.op(), nobody.player(), nobody.emote(), nobody.text()));
      assertTrue(nobody.detail().startsWith("emote.play player \"nobody\""), nobody.detail());
      assertEquals("unknown_player: " + nobody.detail(), nobody.getMessage());
      get(c.join("err-a", PlayerState.of().position(2000, 64, 0)));
      error("player_exists", c.join("err-a", PlayerState.of().position(0, 64, 0)));
      error("unknown_emote", c.play("err-a", "nope:nothing"));
      error("not_standalone", c.play("err-a", "sample:sit_down"));
      error("not_playing", c.stop("err-a"));
      JsonObject zero = new JsonObject();
      zero.addProperty("ticks", 0);
      assertEquals("$.ticks", error("bad_request", c.request("clock.step", zero)).path());
      assertEquals("$.lossy", error("bad_request", c.subscribe(Subscription.of().packets(true).lossy(true))).path());
      get(c.join("err-np", PlayerState.of().position(2100, 64, 0).permissions(Map.of("emote.default", false))));
      error("no_permission", c.play("err-np", "sample:wave"));
      // The same request from a holder of emote.bypass (players.md §6.2), with its source.
      JsonObject bypass = new JsonObject();
      bypass.addProperty("bypass", true);
      bypass.addProperty("source", "api");
      assertEquals(PlayResult.Role.SOLO, get(c.play("err-np", "sample:wave", bypass)).role());
      get(c.stop("err-np"));
      // A request without an id gets only its failure, to onError.
      List<EmoteSimException> got = new CopyOnWriteArrayList<>();
      c.onError(got::add);
      JsonObject stop = new JsonObject();
      stop.addProperty("player", "err-np");
      c.sendWithoutReply("emote.stop", stop);
      get(c.ping());
      assertEquals(List.of("not_playing"), got.stream().map(EmoteSimException::code).toList());
      get(c.leave("err-a"));
      get(c.leave("err-np"));
    }
  }

  @Test
  void unixSocketAndAListenerExecutorOfTheCallersChoice() throws Exception {
    ExecutorService mine = Executors.newSingleThreadExecutor(r -> new Thread(r, "plugin-thread"));
    try (Client c = Client.connect(server.unix, new Client.Options().listenerExecutor(mine))) {
      List<String> threads = new CopyOnWriteArrayList<>();
      c.onFrame(f -> threads.add(Thread.currentThread().getName()));
      get(c.subscribe(Subscription.of().emptyFrames(true)));
      get(c.step(2));
      get(c.ping());
      assertFalse(threads.isEmpty());
      assertEquals(Set.of("plugin-thread"), Set.copyOf(threads));
      // Replies complete there too: with that thread busy, a reply waits for it.
      java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
      mine.execute(() -> {
        try {
          busy.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      CompletableFuture<Void> ping = c.ping();
      ServerProcess.sleep(300);
      assertFalse(ping.isDone());
      busy.countDown();
      get(ping);
    } finally {
      mine.shutdown();
    }
  }

  @Test
  void viewerPacketsWithAudiences() throws Exception {
    try (Client c = connect(server.tcp)) {
      // The option reaches the server: without packets it is refused there (render.md §6.1).
      assertEquals("$.audiences", error("bad_request", c.subscribe(Subscription.of().audiences(true))).path());
      List<Frame> frames = new CopyOnWriteArrayList<>();
      c.onFrame(frames::add);
      get(c.subscribe(Subscription.of().packets(true).audiences(true).players(List.of("va-a"))));
      get(c.join("va-a", PlayerState.of().position(1650, 64, 0).protocol(769).entityId(43)));
      get(c.play("va-a", "sample:wave"));
      get(c.step(2));
      get(c.ping()); // the frames of the steps came before this reply
      List<PacketEntry> mine = new ArrayList<>();
      boolean shared = false;
      for (Frame f : frames) {
        mine.addAll(f.packetsFor("va-a"));
        // One viewer: every entry names the one audience, read once and shared (a to list each
        // would be a list of its own).
        for (PacketEntry e : f.packets()) {
          assertSame(f.packets().get(0).to(), e.to());
          shared |= e != f.packets().get(0);
        }
      }
      assertTrue(shared, "a frame with two entries");
      assertFalse(mine.isEmpty());
      assertTrue(mine.stream().allMatch(e -> e.protocol() == 769 && e.to().equals(List.of("va-a"))));
      assertEquals(c.packetIds().get(769).bundleDelimiter(), mine.get(0).packetId()); // a spawn bundle opens
      get(c.leave("va-a"));
    }
  }

  @Test
  void realtimeClockFramesArrive() throws Exception {
    try (ServerProcess rt = ServerProcess.start("realtime");
         Client c = connect(rt.tcp)) {
      assertFalse(c.manualClock());
      CompletableFuture<JsonObject> started = new CompletableFuture<>();
      c.onEvent("playback.started", (e, f) -> started.complete(e));
      get(c.subscribe(Subscription.of().events(List.of("playback."))));
      get(c.join("rt-a", PlayerState.of().position(0, 64, 0)));
      PlayResult r = get(c.play("rt-a", "sample:wave"));
      assertEquals(r.session(), started.get(5, TimeUnit.SECONDS).get("session").getAsLong());
      error("clock_not_manual", c.step(1));
    }
  }

  @Test
  void tokenAndRole() throws Exception {
    try (ServerProcess secured = ServerProcess.start("manual", "--auth-controller-token", "s3cret")) {
      EmoteSimException e = assertThrows(EmoteSimException.class, () -> Client.connect(secured.tcp));
      assertEquals("unauthorized", e.code());
      try (Client c = Client.connect(secured.tcp, new Client.Options().token("s3cret"))) {
        assertEquals("controller", c.welcome().get("role").getAsString());
      }
    }
  }

  @Test
  void badAddressesAreNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Client.parseAddress("nowhere"));
    assertTrue(e.getMessage().contains("nowhere"));
    assertThrows(IllegalArgumentException.class, () -> Client.parseAddress("127.0.0.1:99999"));
  }
}
