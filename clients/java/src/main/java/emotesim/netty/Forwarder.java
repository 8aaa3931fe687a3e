package emotesim.netty;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import emotesim.client.Client;
import emotesim.client.Frame;
import emotesim.client.PacketEntry;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Writes a frame's packet entries (render.md §6) into the players' connections as render.md §7
 * asks: per player, the entries whose {@code to} lists it, in list order, in one task on its
 * channel's event loop that writes each entry as a fresh buffer and flushes once.
 *
 * <ul>
 *   <li>While a backend bundle is open on the connection ({@link PlayerSink#inBundle()}), entries are
 *       held, and written when it closes ({@link #release}) or with the next frame after it closed.
 *   <li>While the connection is not in play ({@link PlayerSink#inPlay()} false: configuration
 *       during a server switch), entries are dropped; once it is in play again the forwarder asks
 *       for a {@code render_reset} (render.md §4 rule 4: the viewer is dropped from every tracker
 *       and the same tick's tracking pass sends everything in range again — a resync of a client
 *       that holds nothing) and drops the entries of the frames before the reset's tick. The host
 *       says when a connection is in play again with {@link #playResumed}, which asks for the reset
 *       even when no frame came meanwhile (the client lost entities whose displays did not change).
 *   <li>At most {@code maxQueued} entries wait per player (submitted to its event loop or held).
 *       Beyond that the frame's entries for that player are dropped, and so is what still waits
 *       when the event loop gets to it; a {@code render.resync} of the player follows (its client
 *       kept its entities: rule 5 destroys what it tracks and spawns the current state), so a stuck
 *       connection costs bounded memory and converges once it moves again.
 * </ul>
 *
 * Give {@link #accept} to {@code Client.onFrame}; it returns at once.
 */
public final class Forwarder implements Consumer<Frame> {
  /**
   * How the forwarder asks emote-sim to bring a player's client up to date again; each completes
   * with the tick the request was applied in (the frames from that tick on carry the new packets).
   */
  public interface Recovery {
    /** {@code render_reset}: the client lost its entities (render.md §4 rule 4). */
    CompletableFuture<Long> renderReset(String player);

    /** {@code render.resync} for the player: the client kept its entities but missed entries (rule 5). */
    CompletableFuture<Long> resync(String player);

    /** Both through {@code client}. */
    static Recovery of(Client client) {
      return new Recovery() {
        @Override
        public CompletableFuture<Long> renderReset(String player) {
          return client.renderReset(player);
        }

        @Override
        public CompletableFuture<Long> resync(String player) {
          JsonArray players = new JsonArray();
          players.add(player);
          JsonObject fields = new JsonObject();
          fields.add("players", players);
          return client.request("render.resync", fields).thenApply(r -> r.get("tick").getAsLong());
        }
      };
    }
  }

  private final Function<String, PlayerSink> sinks;
  private final Recovery recovery;
  private final int maxQueued;
  private final Map<String, State> states = new ConcurrentHashMap<>();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();

  /**
   * {@code sinks}: the sink of a player key, or null for a player this host does not serve.
   * {@code recovery}: {@code Recovery.of(client)}. {@code maxQueued}: entries per player, at least 1.
   */
  public Forwarder(Function<String, PlayerSink> sinks, Recovery recovery, int maxQueued) {
    if (maxQueued < 1) {
      throw new IllegalArgumentException("maxQueued must be at least 1, not " + maxQueued);
    }
    this.sinks = sinks;
    this.recovery = recovery;
    this.maxQueued = maxQueued;
  }

  /**
   * A frame's entries for one player, or (with {@code reset}) the reply to a reset request: both go
   * through the player's inbox, so a reply is seen after the frames that came before it and before
   * those that came after (Recovery.of's futures complete on the client's listener executor, in the
   * server's order: the reply of tick N before the frame of tick N).
   */
  private record Batch(long tick, List<byte[]> entries, ResetReply reset) {
    Batch(long tick, List<byte[]> entries) {
      this(tick, entries, null);
    }
  }

  /** The outcome of a render_reset or render.resync request; {@code lostWorld}: which one. */
  private record ResetReply(boolean lostWorld, Throwable error) {}

  /** Per player; the fields without atomics are touched on its event loop only. */
  private static final class State {
    final String player;
    final PlayerSink sink;
    final AtomicInteger queued = new AtomicInteger();
    final AtomicBoolean overflow = new AtomicBoolean();
    final ArrayDeque<byte[]> held = new ArrayDeque<>();
    /** Frames handed over and not yet delivered, in frame order. */
    final ConcurrentLinkedQueue<Batch> inbox = new ConcurrentLinkedQueue<>();
    boolean draining;
    boolean needReset;
    /** The client lost its world (not in play): render_reset rather than resync. */
    boolean lostWorld;
    boolean resetInFlight;
    long resumeTick = Long.MIN_VALUE;

    State(String player, PlayerSink sink) {
      this.player = player;
      this.sink = sink;
    }
  }

  @Override
  public void accept(Frame frame) {
    if (frame.packets().isEmpty()) {
      return;
    }
    Map<String, List<byte[]>> perPlayer = new LinkedHashMap<>();
    for (PacketEntry e : frame.packets()) {
      for (String to : e.to()) {
        perPlayer.computeIfAbsent(to, k -> new ArrayList<>()).add(e.data());
      }
    }
    long tick = frame.tick();
    perPlayer.forEach((player, entries) -> {
      State s = state(player);
      if (s == null) {
        return;
      }
      int n = entries.size();
      if (s.queued.addAndGet(n) > maxQueued) {
        s.queued.addAndGet(-n);
        dropped.addAndGet(n);
        if (s.overflow.compareAndSet(false, true)) {
          s.inbox.add(new Batch(tick, List.of()));
          s.sink.eventLoop().execute(() -> drain(s));
        }
        return;
      }
      s.inbox.add(new Batch(tick, entries));
      s.sink.eventLoop().execute(() -> drain(s));
    });
  }

  private State state(String player) {
    State s = states.get(player);
    if (s != null) {
      return s;
    }
    PlayerSink sink = sinks.apply(player);
    return sink == null ? null : states.computeIfAbsent(player, k -> new State(k, sink));
  }

  /**
   * Deliver what the inbox holds, in order. A host whose write runs other event-loop tasks before
   * it returns (Netty's EmbeddedChannel does) re-enters here: the outer call keeps going, so the
   * order stays the frames' order.
   */
  private void drain(State s) {
    if (s.draining) {
      return;
    }
    s.draining = true;
    try {
      Batch b;
      while ((b = s.inbox.poll()) != null) {
        if (b.reset() != null) {
          resetReplied(s, b.tick(), b.reset());
          continue;
        }
        s.queued.addAndGet(-b.entries().size());
        deliver(s, b.tick(), b.entries());
      }
    } finally {
      s.draining = false;
    }
  }

  private void deliver(State s, long tick, List<byte[]> entries) {
    PlayerSink sink = s.sink;
    if (!sink.inPlay()) {
      drop(s, entries.size() + s.held.size());
      s.held.clear();
      s.needReset = true;
      s.lostWorld = true;
      return;
    }
    if (s.overflow.getAndSet(false)) {
      drop(s, s.held.size());
      s.held.clear();
      s.needReset = true;
    }
    if (s.needReset) {
      requestReset(s);
    }
    if (s.resetInFlight || tick < s.resumeTick) {
      drop(s, entries.size()); // they describe what the client had before the reset
      return;
    }
    if (sink.inBundle()) {
      if (s.held.size() + entries.size() > maxQueued) {
        drop(s, s.held.size() + entries.size());
        s.held.clear();
        s.needReset = true;
        requestReset(s);
        return;
      }
      s.held.addAll(entries);
      return;
    }
    int n = s.held.size() + entries.size();
    while (!s.held.isEmpty()) {
      write(sink, s.held.poll());
    }
    for (byte[] e : entries) {
      write(sink, e);
    }
    if (n > 0) {
      sink.flush();
      written.addAndGet(n);
    }
  }

  private static void write(PlayerSink sink, byte[] data) {
    ByteBuf b = sink.alloc().buffer(data.length);
    b.writeBytes(data);
    sink.write(b);
  }

  private void drop(State s, int n) {
    dropped.addAndGet(n);
  }

  private void requestReset(State s) {
    if (s.resetInFlight) {
      // Asked again once the request in flight completes: it may predate what happened since.
      s.needReset = true;
      return;
    }
    s.needReset = false;
    s.resetInFlight = true;
    resets.incrementAndGet();
    boolean lostWorld = s.lostWorld;
    CompletableFuture<Long> f;
    try {
      f = lostWorld ? recovery.renderReset(s.player) : recovery.resync(s.player);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((tick, err) -> {
      s.inbox.add(new Batch(err == null ? tick : 0, List.of(), new ResetReply(lostWorld, err)));
      s.sink.eventLoop().execute(() -> drain(s));
    });
  }

  /** On the event loop, in order with the frames: the reply to the reset request in flight. */
  private void resetReplied(State s, long tick, ResetReply r) {
    s.resetInFlight = false;
    if (r.error() != null) {
      s.needReset = true; // asked again with the next frame
      return;
    }
    s.resumeTick = tick;
    if (r.lostWorld() && !s.needReset) {
      s.lostWorld = false;
    }
    if (s.needReset && s.sink.inPlay()) {
      requestReset(s);
    }
  }

  /**
   * The backend closed its bundle on {@code player}'s connection: write what was held. Call on the
   * player's event loop ({@link BundleTracker} does).
   */
  public void release(String player) {
    State s = states.get(player);
    if (s != null && s.sink.eventLoop().inEventLoop() && !s.draining) {
      deliver(s, Long.MAX_VALUE, List.of());
    }
  }

  /**
   * The player's connection is in play with a client that holds none of emote-sim's entities: the
   * end of a server switch (its configuration phase), or the first time its sink is in place
   * (frames before had nowhere to go). On the player's event loop: the sink forgets a backend
   * bundle it saw open ({@link PlayerSink#playResumed}), what was held is dropped, a
   * {@code render_reset} is asked for, and only the frames from its tick on are forwarded. Called
   * while the connection is not in play yet, the reset is asked for by the first frame that finds it
   * in play.
   */
  public void playResumed(String player) {
    State s = state(player);
    if (s == null) {
      return;
    }
    s.sink.eventLoop().execute(() -> {
      s.sink.playResumed();
      drop(s, s.held.size());
      s.held.clear();
      s.lostWorld = true;
      s.needReset = true;
      if (s.sink.inPlay()) {
        requestReset(s);
      }
    });
  }

  /** Forget a player (it left, or its connection closed); what was held is dropped. */
  public void remove(String player) {
    State s = states.remove(player);
    if (s != null) {
      s.sink.eventLoop().execute(s.held::clear);
    }
  }

  /** Entries written so far (each counted once per recipient). */
  public long written() {
    return written.get();
  }

  /** Entries dropped (not in play, over the bound, before a reset). */
  public long dropped() {
    return dropped.get();
  }

  /** render_reset and render.resync requests made. */
  public long resets() {
    return resets.get();
  }
}
