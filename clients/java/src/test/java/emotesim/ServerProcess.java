package emotesim;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code emote-sim serve} for the tests: the binary named by the system property
 * {@code emote.sim.binary} (scripts/test-java passes the built one) or $EMOTE_SIM, with the bundled
 * configuration and sample emotes, on an ephemeral loopback port and a Unix socket.
 */
final class ServerProcess implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on (127\\.0\\.0\\.1:\\d+)");

  final Path dir;
  final String unix;
  final List<String> extra;
  String tcp;
  private Process process;
  private final StringBuffer log = new StringBuffer();

  static Path root() {
    return Path.of(System.getProperty("emote.sim.root", "../..")).toAbsolutePath().normalize();
  }

  static Path binary() {
    String b = System.getProperty("emote.sim.binary", "");
    if (b.isEmpty()) {
      b = System.getenv().getOrDefault("EMOTE_SIM", "");
    }
    if (b.isEmpty() || !Files.isExecutable(Path.of(b))) {
      throw new IllegalStateException("the integration tests need the emote-sim binary: "
          + "-Demote.sim.binary=PATH or EMOTE_SIM=PATH (scripts/test-java passes build/dev's); got '"
          + b + "'");
    }
    return Path.of(b);
  }

  ServerProcess(String clock, String... extra) throws IOException {
    this.dir = Files.createTempDirectory("emote-sim-java-");
    this.unix = "unix:" + dir.resolve("s.sock");
    this.extra = new ArrayList<>(List.of("--clock", clock));
    this.extra.addAll(List.of(extra));
  }

  static ServerProcess start(String clock, String... extra) throws IOException {
    ServerProcess s = new ServerProcess(clock, extra);
    s.listen("127.0.0.1:0");
    return s;
  }

  /** Start listening on {@code tcpListen} (and the Unix socket); returns once the server is ready. */
  void listen(String tcpListen) throws IOException {
    Files.deleteIfExists(dir.resolve("s.sock"));
    List<String> cmd = new ArrayList<>(List.of(binary().toString(), "serve", "--config",
        root().resolve("config/emote-sim.json").toString(), "--listen", tcpListen, "--listen", unix));
    cmd.addAll(extra);
    log.setLength(0);
    process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    Process p = process;
    Thread reader = new Thread(() -> {
      try (InputStream in = p.getInputStream()) {
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) > 0) {
          log.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "emote-sim-log");
    reader.setDaemon(true);
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      Matcher m = LISTENING.matcher(log);
      if (m.find() && log.indexOf("ready") >= 0) {
        tcp = m.group(1);
        return;
      }
      if (!p.isAlive()) {
        throw new IOException("emote-sim exited (" + p.exitValue() + "):\n" + log);
      }
      sleep(20);
    }
    p.destroyForcibly();
    throw new IOException("emote-sim did not start within 20 s:\n" + log);
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, as a crash would. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** Send a signal by name (STOP, CONT) with kill(1). */
  void signal(String name) throws IOException, InterruptedException {
    Process k = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
    k.waitFor(5, TimeUnit.SECONDS);
  }

  String log() {
    return log.toString();
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws Exception {
    if (process != null && process.isAlive()) {
      signal("CONT");
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
