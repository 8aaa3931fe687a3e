package emotesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import emotesim.client.Client;
import emotesim.client.Frame;
import emotesim.client.PacketEntry;
import emotesim.client.PacketIds;
import emotesim.client.PlayerState;
import emotesim.client.Subscription;
import emotesim.netty.BundleTracker;
import emotesim.netty.ChannelSink;
import emotesim.netty.Forwarder;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The forwarder with real threads: a realtime emote-sim, the client's own listener thread calling
 * the forwarder, and each player's connection a Netty local channel on a real event loop, into
 * which a "backend" thread writes bundles (delimiter, two packets, delimiter) as separate tasks at
 * the same time. At the other end of each channel: emote-sim's entries are exactly the frames' entries
 * for that player, in order; none arrives while a backend bundle is open; and one frame's entries
 * arrive together, no backend packet among them (one event-loop task per frame).
 */
class ForwarderThreadsTest {
  /** One packet as the far end of a player's channel received it. */
  record Received(boolean backend, String hex) {}

  static final class Player {
    final String key;
    final Channel channel;
    final Channel server;
    final List<Received> received = new CopyOnWriteArrayList<>();
    final Set<ByteBuf> backendBuffers = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    final AtomicBoolean stop = new AtomicBoolean();
    Thread backend;
    int bundles;

    Player(String key, DefaultEventLoopGroup group) throws Exception {
      this.key = key;
      LocalAddress address = new LocalAddress("emote-sim-threads-" + key + "-" + System.nanoTime());
      server = new ServerBootstrap().group(group).channel(LocalServerChannel.class)
          .childHandler(new ChannelInitializer<LocalChannel>() {
            @Override
            protected void initChannel(LocalChannel ch) {
              ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                  ByteBuf b = (ByteBuf) msg;
                  received.add(new Received(backendBuffers.contains(b), ByteBufUtil.hexDump(b)));
                  b.release();
                }
              });
            }
          }).bind(address).sync().channel();
      channel = new Bootstrap().group(group).channel(LocalChannel.class)
          .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
    }

    /** The backend writes one packet from its own thread: a task on the channel's event loop. */
    void backendWrite(int... bytes) {
      byte[] b = new byte[bytes.length];
      for (int i = 0; i < bytes.length; i++) {
        b[i] = (byte) bytes[i];
      }
      ByteBuf buf = Unpooled.wrappedBuffer(b);
      backendBuffers.add(buf);
      channel.writeAndFlush(buf);
    }

    void startBackend() {
      backend = new Thread(() -> {
        while (!stop.get()) {
          backendWrite(0x00);
          backendWrite(0x7e, 1);
          ServerProcess.sleep(1);
          backendWrite(0x7e, 2);
          backendWrite(0x00);
          bundles++;
          ServerProcess.sleep(2);
        }
      }, "backend-" + key);
      backend.start();
    }

    void stopBackend() throws Exception {
      stop.set(true);
      if (backend != null) {
        backend.join(5000);
      }
    }

    void close() throws Exception {
      stopBackend();
      channel.close().sync();
      server.close().sync();
    }
  }

  @Test
  void entriesStayTogetherInOrderAndOutOfTheBackendsBundlesOnRealEventLoops() throws Exception {
    DefaultEventLoopGroup group = new DefaultEventLoopGroup(2);
    Map<String, Player> players = new LinkedHashMap<>();
    try (ServerProcess s = ServerProcess.start("realtime");
         Client c = Client.connect(s.tcp)) {
      Map<Integer, PacketIds> ids = c.packetIds();
      Map<String, ChannelSink> sinks = new LinkedHashMap<>();
      Forwarder[] fw = new Forwarder[1];
      for (var e : Map.of("alice", 769, "bob", 775).entrySet()) {
        Player p = new Player(e.getKey(), group);
        players.put(e.getKey(), p);
        sinks.put(e.getKey(), ChannelSink.install(p.channel, null,
            new BundleTracker(ids.get(e.getValue()).bundleDelimiter(), () -> fw[0].release(e.getKey())), () -> true));
      }
      fw[0] = new Forwarder(sinks::get, Forwarder.Recovery.of(c), 100_000);
      List<Frame> frames = new CopyOnWriteArrayList<>();
      c.onFrame(frames::add);
      c.onFrame(fw[0]);
      players.values().forEach(Player::startBackend);

      c.subscribe(Subscription.of().packets(true)).get(10, TimeUnit.SECONDS);
      c.join("alice", PlayerState.of().position(0, 64, 0).protocol(769).entityId(101)).get(10, TimeUnit.SECONDS);
      c.join("bob", PlayerState.of().position(3, 64, 0).yaw(90).protocol(775).entityId(102)).get(10, TimeUnit.SECONDS);
      c.play("alice", "sample:wave").get(10, TimeUnit.SECONDS);
      c.play("bob", "sample:wave").get(10, TimeUnit.SECONDS);
      ServerProcess.sleep(1500); // 30 ticks of the realtime clock
      c.stopAll().get(10, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (c.state(null).get(10, TimeUnit.SECONDS).getAsJsonArray("displays").size() > 0
          && System.nanoTime() < deadline) {
        ServerProcess.sleep(50);
      }
      c.ping().get(10, TimeUnit.SECONDS); // the frames before it were handed to the forwarder
      for (Player p : players.values()) {
        p.stopBackend();
        p.backendWrite(0x7f); // queued on the event loop after every forwarder task
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (p.received.stream().noneMatch(r -> r.hex().equals("7f")) && System.nanoTime() < until) {
          ServerProcess.sleep(10);
        }
      }

      assertEquals(0, fw[0].dropped());
      for (Player p : players.values()) {
        List<List<String>> perFrame = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (Frame f : frames) {
          List<String> entries = new ArrayList<>();
          for (PacketEntry e : f.packetsFor(p.key)) {
            entries.add(ByteBufUtil.hexDump(e.data()));
          }
          if (!entries.isEmpty()) {
            perFrame.add(entries);
            expected.addAll(entries);
          }
        }
        assertFalse(expected.isEmpty(), p.key + " had entries");
        assertTrue(p.bundles > 20, p.key + ": the backend wrote " + p.bundles + " bundles meanwhile");
        List<String> ours = p.received.stream().filter(r -> !r.backend()).map(Received::hex).toList();
        assertEquals(expected, ours, p.key + ": emote-sim's entries, in order");
        // Walk the stream: backend delimiters toggle its bundle; each frame's entries come in one run.
        boolean open = false;
        int frame = 0;
        int inFrame = 0;
        boolean runBroken = false;
        for (Received r : p.received) {
          if (r.backend()) {
            if (r.hex().equals("00")) {
              open = !open;
            }
            runBroken = inFrame > 0;
            continue;
          }
          assertFalse(open, p.key + ": entry " + r.hex() + " of frame #" + frame + " inside a backend bundle");
          assertFalse(runBroken, p.key + ": a backend packet between entries of frame #" + frame);
          inFrame++;
          if (inFrame == perFrame.get(frame).size()) {
            frame++;
            inFrame = 0;
            runBroken = false;
          }
        }
        assertEquals(perFrame.size(), frame);
      }
    } finally {
      for (Player p : players.values()) {
        p.close();
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }
}
