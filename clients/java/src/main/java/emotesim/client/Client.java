package emotesim.client;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A connection to emote-sim (protocol.md): hello with role and token, every op as a typed method
 * whose reply is a {@link CompletableFuture} (failing with {@link EmoteSimException} on an error
 * reply, {@link ConnectionClosedException} when the connection drops first, or
 * {@link TimeoutException} after the request timeout), and frames delivered to listeners on the
 * executor the caller chooses ({@link Options#listenerExecutor}), in the order the server sent
 * them. Replies complete on that executor too, so the replies of tick N are seen before its frame
 * (protocol.md §3); do not block that executor waiting for a reply.
 *
 * <p>With {@link Options#reconnect}, a dropped connection is retried with exponential backoff; once
 * back, the client joins again the players it joined (with their last state), subscribes again,
 * sends {@code render.resync} and tells its {@link ConnectionListener}s. Requests made while it is
 * disconnected fail at once with {@link ConnectionClosedException}.
 */
public final class Client implements AutoCloseable {
  /** The default address, protocol.md §1. */
  public static final String DEFAULT_ADDRESS = "127.0.0.1:25580";

  /** Connection options; every setter returns this. */
  public static final class Options {
    String role = "controller";
    String token;
    String clientName = "emote-sim-client.java/0.1";
    Duration timeout = Duration.ofSeconds(10);
    Executor listenerExecutor;
    boolean reconnect;
    Duration initialDelay = Duration.ofMillis(50);
    Duration maxDelay = Duration.ofSeconds(2);
    Duration reconnectTimeout = Duration.ZERO;

    /** {@code controller} (default) or {@code observer}. */
    public Options role(String role) {
      if (!role.equals("controller") && !role.equals("observer")) {
        throw new IllegalArgumentException("role must be controller or observer, not " + role);
      }
      this.role = role;
      return this;
    }

    public Options token(String token) {
      this.token = token;
      return this;
    }

    /** The name the server logs for this connection. */
    public Options clientName(String name) {
      this.clientName = name;
      return this;
    }

    /** How long the welcome and each reply may take (default 10 s). */
    public Options timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * Where listeners run and futures complete: a serial executor (a Netty event loop, a
     * single-thread executor). Default: one daemon thread of the client's own.
     */
    public Options listenerExecutor(Executor executor) {
      this.listenerExecutor = executor;
      return this;
    }

    /**
     * Reconnect after a drop, waiting {@code initialDelay} doubled after each failed try up to
     * {@code maxDelay}; give up after {@code timeout} without success (zero: never).
     */
    public Options reconnect(Duration initialDelay, Duration maxDelay, Duration timeout) {
      this.reconnect = true;
      this.initialDelay = initialDelay;
      this.maxDelay = maxDelay;
      this.reconnectTimeout = timeout;
      return this;
    }
  }

  private record Pending(CompletableFuture<JsonObject> future, Conn conn, String op) {}

  private final String address;
  private final Options options;
  private final Executor listeners;
  private final ExecutorService ownListeners;
  private final ScheduledExecutorService timers;
  private final AtomicLong nextId = new AtomicLong(1);
  private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
  private final List<Consumer<Frame>> frameListeners = new CopyOnWriteArrayList<>();
  private final List<ConnectionListener> connectionListeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<EmoteSimException>> errorListeners = new CopyOnWriteArrayList<>();
  /** The players this client joined, by key, with their last known fields (join order). */
  private final Map<String, JsonObject> players = new LinkedHashMap<>();
  private volatile JsonObject subscription;
  private volatile Conn conn;
  private volatile JsonObject welcome;
  private volatile boolean closing;
  private volatile long tick;

  private Client(String address, Options options) {
    this.address = address;
    this.options = options;
    // Two threads: a reconnect blocks one waiting for replies whose timeouts run on the other.
    this.timers = Executors.newScheduledThreadPool(2, daemon("emote-sim-timers"));
    if (options.listenerExecutor != null) {
      this.listeners = options.listenerExecutor;
      this.ownListeners = null;
    } else {
      this.ownListeners = Executors.newSingleThreadExecutor(daemon("emote-sim-listeners"));
      this.listeners = ownListeners;
    }
  }

  /** Connect to {@code address} ({@code HOST:PORT} or {@code unix:PATH}) and say hello. */
  public static Client connect(String address, Options options) throws IOException {
    Client c = new Client(address, options);
    try {
      c.open();
    } catch (IOException | RuntimeException e) {
      c.shutdownExecutors();
      throw e;
    }
    return c;
  }

  public static Client connect(String address) throws IOException {
    return connect(address, new Options());
  }

  // -- connection ------------------------------------------------------------------------------

  /** The socket address of {@code HOST:PORT}, {@code [V6]:PORT} or {@code unix:PATH}. */
  public static SocketAddress parseAddress(String address) {
    if (address.startsWith("unix:")) {
      return UnixDomainSocketAddress.of(address.substring(5));
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException("bad address \"" + address + "\": expected HOST:PORT or unix:PATH");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad port in address \"" + address + "\"");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range in address \"" + address + "\"");
    }
    return new InetSocketAddress(host, port);
  }

  private void open() throws IOException {
    SocketAddress where = parseAddress(address);
    SocketChannel ch = where instanceof UnixDomainSocketAddress
        ? SocketChannel.open(StandardProtocolFamily.UNIX) : SocketChannel.open();
    try {
      var guard = timers.schedule(() -> closeQuietly(ch), options.timeout.toMillis(), TimeUnit.MILLISECONDS);
      ch.connect(where);
      if (where instanceof InetSocketAddress) {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      }
      JsonObject hello = new JsonObject();
      hello.addProperty("op", "hello");
      hello.addProperty("protocol", 1);
      hello.addProperty("role", options.role);
      hello.addProperty("client", options.clientName);
      if (options.token != null) {
        hello.addProperty("token", options.token);
      }
      Conn c = new Conn(ch);
      c.send(hello.toString());
      String first = c.readLine();
      guard.cancel(false);
      if (first == null) {
        throw new IOException("emote-sim closed the connection during hello (no welcome within "
            + options.timeout.toMillis() + " ms?)");
      }
      JsonObject msg = parseObject(first);
      if (msg == null || !"welcome".equals(string(msg, "op"))) {
        if (msg != null && "reply".equals(string(msg, "op")) && msg.has("error")) {
          throw new EmoteSimException(msg);
        }
        throw new IOException("expected a welcome, got: " + first);
      }
      welcome = msg;
      tick = msg.has("tick") ? msg.get("tick").getAsLong() : 0;
      conn = c;
      Thread reader = new Thread(() -> readLoop(c), "emote-sim-reader");
      reader.setDaemon(true);
      reader.start();
    } catch (IOException | RuntimeException e) {
      closeQuietly(ch);
      throw e;
    }
  }

  /** One socket: blocking reads on the reader thread, writes under a lock. */
  private static final class Conn {
    final SocketChannel ch;
    final Object writeLock = new Object();
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    private byte[] line = new byte[4096];
    private int lineLength;

    Conn(SocketChannel ch) {
      this.ch = ch;
      in.flip();
    }

    void send(String text) throws IOException {
      ByteBuffer b = StandardCharsets.UTF_8.encode(text + "\n");
      synchronized (writeLock) {
        while (b.hasRemaining()) {
          ch.write(b);
        }
      }
    }

    /** The next line without its terminator; null at the end of the stream. */
    String readLine() throws IOException {
      while (true) {
        while (in.hasRemaining()) {
          byte b = in.get();
          if (b == '\n') {
            int n = lineLength > 0 && line[lineLength - 1] == '\r' ? lineLength - 1 : lineLength;
            lineLength = 0;
            return new String(line, 0, n, StandardCharsets.UTF_8);
          }
          if (lineLength == line.length) {
            line = java.util.Arrays.copyOf(line, line.length * 2);
          }
          line[lineLength++] = b;
        }
        in.clear();
        int n = ch.read(in);
        in.flip();
        if (n < 0) {
          return null;
        }
      }
    }
  }

  private void readLoop(Conn c) {
    String reason = "closed";
    try {
      String text;
      while ((text = c.readLine()) != null) {
        if (text.isEmpty()) {
          continue;
        }
        JsonObject msg = parseObject(text);
        if (msg == null) {
          continue; // the server writes JSON objects only
        }
        if ("bye".equals(string(msg, "op"))) {
          String r = string(msg, "reason");
          reason = r == null ? "bye" : r;
          continue;
        }
        listeners.execute(() -> dispatch(c, msg));
      }
    } catch (IOException e) {
      // the socket closed (by us, the server, or a reset): handled below
    }
    closeQuietly(c.ch);
    String why = reason;
    lost(c, why);
  }

  private void dispatch(Conn c, JsonObject msg) {
    JsonElement t = msg.get("tick");
    if (t != null && t.isJsonPrimitive() && t.getAsLong() > tick) {
      tick = t.getAsLong();
    }
    String op = string(msg, "op");
    if ("reply".equals(op)) {
      JsonElement id = msg.get("id");
      Pending p = id != null && id.isJsonPrimitive() ? pending.remove(id.getAsLong()) : null;
      boolean ok = msg.has("ok") && msg.get("ok").getAsBoolean();
      if (p != null) {
        if (ok) {
          p.future.complete(msg);
        } else {
          p.future.completeExceptionally(new EmoteSimException(msg));
        }
      } else if (!ok) {
        EmoteSimException e = new EmoteSimException(msg);
        for (Consumer<EmoteSimException> l : errorListeners) {
          guarded(() -> l.accept(e));
        }
      }
    } else if ("frame".equals(op)) {
      // A frame that cannot be read (an audience index it does not have) goes to the thread's
      // uncaught-exception handler, as a listener's exception does, and reaches no listener.
      guarded(() -> {
        Frame f = parseFrame(msg);
        for (Consumer<Frame> l : frameListeners) {
          guarded(() -> l.accept(f));
        }
      });
    }
  }

  private static void guarded(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      Thread t = Thread.currentThread();
      t.getUncaughtExceptionHandler().uncaughtException(t, e);
    }
  }

  static Frame parseFrame(JsonObject msg) {
    List<JsonObject> events = new ArrayList<>();
    JsonElement ev = msg.get("events");
    if (ev != null && ev.isJsonArray()) {
      for (JsonElement e : ev.getAsJsonArray()) {
        events.add(e.getAsJsonObject());
      }
    }
    long tick = msg.get("tick").getAsLong();
    // render.md §6.1: with audiences, each recipient list once; its entries share that list.
    List<List<String>> audiences = new ArrayList<>();
    JsonElement au = msg.get("audiences");
    if (au != null && au.isJsonArray()) {
      for (JsonElement a : au.getAsJsonArray()) {
        audiences.add(keys(a.getAsJsonArray()));
      }
    }
    List<PacketEntry> packets = new ArrayList<>();
    JsonElement pk = msg.get("packets");
    if (pk != null && pk.isJsonArray()) {
      for (JsonElement e : pk.getAsJsonArray()) {
        JsonObject o = e.getAsJsonObject();
        List<String> to;
        JsonElement a = o.get("audience");
        if (a == null) {
          to = keys(o.getAsJsonArray("to"));
        } else {
          int index = audienceIndex(a, audiences.size());
          if (index < 0) {
            throw new IllegalArgumentException("frame of tick " + tick + ": packet entry names audience "
                + a + ", but the frame has " + audiences.size() + " audiences (render.md §6.1)");
          }
          to = audiences.get(index);
        }
        packets.add(new PacketEntry(to, o.get("protocol").getAsInt(),
            Base64.getDecoder().decode(o.get("data").getAsString())));
      }
    }
    long dropped = msg.has("dropped") ? msg.get("dropped").getAsLong() : 0;
    return new Frame(tick, List.copyOf(events), List.copyOf(packets), dropped);
  }

  private static List<String> keys(JsonArray array) {
    List<String> out = new ArrayList<>();
    for (JsonElement k : array) {
      out.add(k.getAsString());
    }
    return List.copyOf(out);
  }

  /** An entry's audience index when it is an integer in [0, count), else -1. */
  private static int audienceIndex(JsonElement a, int count) {
    if (!a.isJsonPrimitive() || !a.getAsJsonPrimitive().isNumber()) {
      return -1;
    }
    String text = a.getAsString(); // as written in the frame
    if (!text.matches("[0-9]{1,9}")) {
      return -1;
    }
    int index = Integer.parseInt(text);
    return index < count ? index : -1;
  }

  private void lost(Conn c, String reason) {
    synchronized (this) {
      if (conn != c) {
        return;
      }
      conn = null;
    }
    failPending(c, reason);
    listeners.execute(() -> {
      for (ConnectionListener l : connectionListeners) {
        guarded(() -> l.disconnected(reason));
      }
    });
    if (options.reconnect && !closing) {
      long deadline = options.reconnectTimeout.isZero() ? Long.MAX_VALUE
          : System.nanoTime() + options.reconnectTimeout.toNanos();
      timers.schedule(() -> reconnectLoop(options.initialDelay.toMillis(), deadline),
          options.initialDelay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void failPending(Conn c, String reason) {
    for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (c == null || e.getValue().conn == c) {
        it.remove();
        Pending p = e.getValue();
        p.future.completeExceptionally(new ConnectionClosedException(reason,
            "the connection to emote-sim closed (" + reason + ") before the reply to " + p.op
                + " #" + e.getKey()));
      }
    }
  }

  private void reconnectLoop(long delayMs, long deadline) {
    if (closing) {
      return;
    }
    try {
      open();
    } catch (EmoteSimException e) {
      fireReconnectFailed(e);
      return;
    } catch (IOException | RuntimeException e) {
      long next = Math.min(delayMs * 2, options.maxDelay.toMillis());
      if (System.nanoTime() + next * 1_000_000 > deadline) {
        fireReconnectFailed(new IOException("reconnecting to emote-sim at " + address
            + " gave up: " + e.getMessage(), e));
        return;
      }
      timers.schedule(() -> reconnectLoop(next, deadline), next, TimeUnit.MILLISECONDS);
      return;
    }
    restore();
  }

  /** After a reconnect: join the known players again, subscribe again, resync. */
  private void restore() {
    Conn restoring = conn;
    List<String> rejoined = new ArrayList<>();
    long viewers = 0;
    try {
      if (options.role.equals("controller")) {
        List<Map.Entry<String, JsonObject>> known;
        synchronized (players) {
          known = new ArrayList<>();
          players.forEach((k, v) -> known.add(Map.entry(k, v.deepCopy())));
        }
        for (var p : known) {
          JsonObject fields = p.getValue();
          try {
            await(send("player.join", fields));
          } catch (EmoteSimException e) {
            if (!e.code().equals("player_exists")) {
              throw e;
            }
            // Kept on disconnect by the server: bring its state up to date instead.
            fields.remove("uuid");
            fields.remove("keep_on_disconnect");
            await(send("player.update", fields));
          }
          rejoined.add(p.getKey());
        }
      }
      JsonObject sub = subscription;
      if (sub != null) {
        await(send("subscribe", sub.deepCopy()));
      }
      if (options.role.equals("controller")) {
        viewers = await(send("render.resync", new JsonObject())).get("viewers").getAsLong();
      }
    } catch (ConnectionClosedException e) {
      // Dropped again: lost() started the next attempt. Or a reply timed out on a connection that
      // is still open: close it, so that lost() starts the next attempt rather than leaving a
      // connection whose players and subscription were not restored.
      if (restoring != null && conn == restoring) {
        closeQuietly(restoring.ch);
      }
      return;
    } catch (RuntimeException e) {
      fireReconnectFailed(e);
      return;
    }
    JsonObject w = welcome;
    long v = viewers;
    listeners.execute(() -> {
      for (ConnectionListener l : connectionListeners) {
        guarded(() -> l.reconnected(w, List.copyOf(rejoined), v));
      }
    });
  }

  private void fireReconnectFailed(Throwable cause) {
    listeners.execute(() -> {
      for (ConnectionListener l : connectionListeners) {
        guarded(() -> l.reconnectFailed(cause));
      }
    });
  }

  private JsonObject await(CompletableFuture<JsonObject> f) {
    try {
      return f.get(options.timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new ConnectionClosedException("timeout", "no reply from emote-sim within "
          + options.timeout.toMillis() + " ms while restoring the connection");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new ConnectionClosedException("closed", String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionClosedException("closed", "interrupted");
    }
  }

  /** Say bye and close; no reconnect follows. Requests still in flight fail. */
  @Override
  public void close() {
    closing = true;
    Conn c;
    synchronized (this) {
      c = conn;
      conn = null;
    }
    if (c != null) {
      try {
        c.send("{\"op\":\"bye\"}");
      } catch (IOException e) {
        // already closed
      }
      closeQuietly(c.ch);
    }
    failPending(null, "closed");
    shutdownExecutors();
  }

  private void shutdownExecutors() {
    timers.shutdownNow();
    if (ownListeners != null) {
      ownListeners.shutdown();
    }
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  // -- listeners -------------------------------------------------------------------------------

  /** Call {@code listener} with every frame; returns what removes it. */
  public Runnable onFrame(Consumer<Frame> listener) {
    frameListeners.add(listener);
    return () -> frameListeners.remove(listener);
  }

  /**
   * Call {@code listener(event, frame)} for every event of {@code type}, or of every type starting
   * with it when it ends in '.' ({@code "partner."}).
   */
  public Runnable onEvent(String type, BiConsumer<JsonObject, Frame> listener) {
    return onFrame(f -> {
      for (JsonObject e : f.events(type)) {
        listener.accept(e, f);
      }
    });
  }

  public Runnable onConnection(ConnectionListener listener) {
    connectionListeners.add(listener);
    return () -> connectionListeners.remove(listener);
  }

  /** Errors of requests sent without an id ({@link #sendWithoutReply}) and of unparsable lines. */
  public Runnable onError(Consumer<EmoteSimException> listener) {
    errorListeners.add(listener);
    return () -> errorListeners.remove(listener);
  }

  // -- state -----------------------------------------------------------------------------------

  /** The latest welcome (after a reconnect, the new server's). */
  public JsonObject welcome() {
    return welcome;
  }

  /** Per Minecraft protocol, the packet ids of the latest welcome (protocol.md §2). */
  public Map<Integer, PacketIds> packetIds() {
    return PacketIds.fromWelcome(welcome);
  }

  public boolean manualClock() {
    return "manual".equals(string(welcome, "clock"));
  }

  public boolean connected() {
    return conn != null;
  }

  /** The latest tick seen in a welcome, reply or frame. */
  public long tick() {
    return tick;
  }

  /** The keys of the players this client joined and has not made leave, in join order. */
  public List<String> players() {
    synchronized (players) {
      return List.copyOf(players.keySet());
    }
  }

  // -- requests --------------------------------------------------------------------------------

  /** Send {@code op} with {@code fields} and an id; the future completes with the reply line. */
  public CompletableFuture<JsonObject> request(String op, JsonObject fields) {
    return send(op, fields.deepCopy());
  }

  private CompletableFuture<JsonObject> send(String op, JsonObject msg) {
    CompletableFuture<JsonObject> f = new CompletableFuture<>();
    Conn c = conn;
    if (c == null) {
      f.completeExceptionally(new ConnectionClosedException(closing ? "closed" : "disconnected",
          closing ? "the client is closed" : "not connected to emote-sim (reconnecting)"));
      return f;
    }
    long id = nextId.getAndIncrement();
    msg.addProperty("op", op);
    msg.addProperty("id", id);
    pending.put(id, new Pending(f, c, op));
    try {
      c.send(msg.toString());
    } catch (IOException e) {
      pending.remove(id);
      f.completeExceptionally(new ConnectionClosedException("closed",
          "writing " + op + " to emote-sim failed: " + e.getMessage()));
      return f;
    }
    var timer = timers.schedule(() -> {
      if (pending.remove(id) != null) {
        f.completeExceptionally(new TimeoutException("no reply to " + op + " #" + id + " within "
            + options.timeout.toMillis() + " ms"));
      }
    }, options.timeout.toMillis(), TimeUnit.MILLISECONDS);
    f.whenComplete((r, e) -> timer.cancel(false));
    return f;
  }

  /** Send {@code op} without an id: only a failure is answered, to {@link #onError}. */
  public void sendWithoutReply(String op, JsonObject fields) throws IOException {
    Conn c = conn;
    if (c == null) {
      throw new ConnectionClosedException("disconnected", "not connected to emote-sim");
    }
    JsonObject msg = fields.deepCopy();
    msg.addProperty("op", op);
    c.send(msg.toString());
  }

  public CompletableFuture<Void> ping() {
    return request("ping", new JsonObject()).thenApply(r -> null);
  }

  /** {@code player.join}: the player's key and its state (protocol.md §4, §5). */
  public CompletableFuture<Void> join(String player, PlayerState state, boolean keepOnDisconnect) {
    JsonObject fields = state.toJson();
    fields.addProperty("player", player);
    if (keepOnDisconnect) {
      fields.addProperty("keep_on_disconnect", true);
    }
    JsonObject copy = fields.deepCopy();
    return send("player.join", fields).thenApply(r -> {
      copy.remove("render_reset");
      synchronized (players) {
        players.put(player, copy);
      }
      return null;
    });
  }

  public CompletableFuture<Void> join(String player, PlayerState state) {
    return join(player, state, false);
  }

  /** {@code player.update} with any subset of the state fields: the tick it was applied in. */
  public CompletableFuture<Long> update(String player, PlayerState state) {
    JsonObject fields = state.toJson();
    fields.addProperty("player", player);
    JsonObject changed = state.toJson();
    return send("player.update", fields).thenApply(r -> {
      changed.remove("render_reset");
      synchronized (players) {
        JsonObject known = players.get(player);
        if (known != null) {
          changed.entrySet().forEach(e -> known.add(e.getKey(), e.getValue()));
        }
      }
      return r.get("tick").getAsLong();
    });
  }

  /**
   * {@code render_reset} (render.md §4 rule 4): the player's client lost its entities; the tick's
   * tracking pass sends everything in range again. Completes with that tick: the frames from it on
   * carry the new packets.
   */
  public CompletableFuture<Long> renderReset(String player) {
    return update(player, PlayerState.of().renderReset());
  }

  /** {@code player.event}: jump, damage, attack, mount, respawn, with the event's fields. */
  public CompletableFuture<Void> event(String player, String event, JsonObject fields) {
    JsonObject msg = fields.deepCopy();
    msg.addProperty("player", player);
    msg.addProperty("event", event);
    return send("player.event", msg).thenApply(r -> null);
  }

  public CompletableFuture<Void> leave(String player) {
    JsonObject msg = new JsonObject();
    msg.addProperty("player", player);
    return send("player.leave", msg).thenApply(r -> {
      synchronized (players) {
        players.remove(player);
      }
      return null;
    });
  }

  /**
   * {@code emote.play}. For a two-player emote the reply's role says whether the player made an
   * offer ({@code INITIATOR}) or accepted one ({@code PARTNER}); the {@code partner.*} events follow
   * in frames. An offer made while another was open names that one and why it was not joined
   * ({@link PlayResult#unmatched()}). {@code extra}: {@code source}, {@code bypass}, {@code placement} (may be null).
   */
  public CompletableFuture<PlayResult> play(String player, String emote, JsonObject extra) {
    JsonObject msg = extra == null ? new JsonObject() : extra.deepCopy();
    msg.addProperty("player", player);
    msg.addProperty("emote", emote);
    return send("emote.play", msg).thenApply(PlayResult::fromReply);
  }

  public CompletableFuture<PlayResult> play(String player, String emote) {
    return play(player, emote, null);
  }

  /** {@code emote.stop}: the stopped session. */
  public CompletableFuture<Long> stop(String player) {
    JsonObject msg = new JsonObject();
    msg.addProperty("player", player);
    return send("emote.stop", msg).thenApply(r -> r.get("session").getAsLong());
  }

  /** {@code emote.stop_all}: how many stopped. */
  public CompletableFuture<Long> stopAll() {
    return send("emote.stop_all", new JsonObject()).thenApply(r -> r.get("stopped").getAsLong());
  }

  public CompletableFuture<List<JsonObject>> listEmotes() {
    return send("emote.list", new JsonObject()).thenApply(r -> {
      List<JsonObject> out = new ArrayList<>();
      r.getAsJsonArray("emotes").forEach(e -> out.add(e.getAsJsonObject()));
      return out;
    });
  }

  public CompletableFuture<JsonObject> info(String emote) {
    JsonObject msg = new JsonObject();
    msg.addProperty("emote", emote);
    return send("emote.info", msg);
  }

  public CompletableFuture<JsonObject> reload(boolean allowEmpty) {
    JsonObject msg = new JsonObject();
    if (allowEmpty) {
      msg.addProperty("allow_empty", true);
    }
    return send("emote.reload", msg);
  }

  /** {@code emote.register}: the registered emote's id. */
  public CompletableFuture<String> register(JsonObject document) {
    JsonObject msg = new JsonObject();
    msg.add("document", document);
    return send("emote.register", msg).thenApply(r -> r.get("emote").getAsString());
  }

  public CompletableFuture<Void> unregister(String emote) {
    JsonObject msg = new JsonObject();
    msg.addProperty("emote", emote);
    return send("emote.unregister", msg).thenApply(r -> null);
  }

  /** {@code world.blocks}: {@code set} as protocol.md §4 gives it; the changed count. */
  public CompletableFuture<Long> worldBlocks(String dimension, JsonArray set) {
    JsonObject msg = new JsonObject();
    if (dimension != null) {
      msg.addProperty("dimension", dimension);
    }
    msg.add("set", set);
    return send("world.blocks", msg).thenApply(r -> r.get("changed").getAsLong());
  }

  public CompletableFuture<Long> worldClear(String dimension) {
    JsonObject msg = new JsonObject();
    if (dimension != null) {
      msg.addProperty("dimension", dimension);
    }
    return send("world.clear", msg).thenApply(r -> r.get("cleared").getAsLong());
  }

  /** {@code cooldown.clear} for one player, or everyone when null. */
  public CompletableFuture<Long> cooldownClear(String player) {
    JsonObject msg = new JsonObject();
    if (player != null) {
      msg.addProperty("player", player);
    }
    return send("cooldown.clear", msg).thenApply(r -> r.get("cleared").getAsLong());
  }

  /** {@code state.get}: everything, or one player's (when not null). */
  public CompletableFuture<JsonObject> state(String player) {
    JsonObject msg = new JsonObject();
    if (player != null) {
      msg.addProperty("player", player);
    }
    return send("state.get", msg);
  }

  /** One page of {@code state.get}: {@code limit} players after the key {@code after} (or first). */
  public CompletableFuture<JsonObject> statePage(int limit, String after) {
    JsonObject msg = new JsonObject();
    msg.addProperty("limit", limit);
    if (after != null) {
      msg.addProperty("after", after);
    }
    return send("state.get", msg);
  }

  /** {@code subscribe}; remembered, and sent again after a reconnect. */
  public CompletableFuture<Void> subscribe(Subscription s) {
    JsonObject fields = s.toJson();
    return send("subscribe", fields.deepCopy()).thenApply(r -> {
      subscription = fields;
      return null;
    });
  }

  /** {@code render.resync} for these players (every viewer when null): how many are viewers. */
  public CompletableFuture<Long> resync(List<String> players) {
    JsonObject msg = new JsonObject();
    if (players != null) {
      JsonArray a = new JsonArray();
      players.forEach(a::add);
      msg.add("players", a);
    }
    return send("render.resync", msg).thenApply(r -> r.get("viewers").getAsLong());
  }

  /** {@code clock.step} on a manual clock: the tick after the steps ran. */
  public CompletableFuture<Long> step(int ticks) {
    JsonObject msg = new JsonObject();
    msg.addProperty("ticks", ticks);
    return send("clock.step", msg).thenApply(r -> r.get("tick").getAsLong());
  }

  // -- helpers ---------------------------------------------------------------------------------

  private static JsonObject parseObject(String text) {
    try {
      JsonElement e = JsonParser.parseString(text);
      return e.isJsonObject() ? e.getAsJsonObject() : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String string(JsonObject o, String key) {
    if (o == null) {
      return null;
    }
    JsonElement e = o.get(key);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** The cause of a failed future's exception (unwraps CompletionException/ExecutionException). */
  public static Throwable cause(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return Objects.requireNonNull(t);
  }
}
