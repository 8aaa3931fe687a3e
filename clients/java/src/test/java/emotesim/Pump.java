package emotesim;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A listener executor run by the test's own thread, so that the client's listeners, the forwarder
 * and the EmbeddedChannels (not thread-safe) all run on one thread, in the order the server sent.
 */
final class Pump implements Executor {
  private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  /** Run tasks until {@code f} is done (15 s at most); its value. */
  <T> T await(CompletableFuture<T> f) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!f.isDone()) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("no reply within 15 s");
      }
      Runnable r = tasks.poll(10, TimeUnit.MILLISECONDS);
      if (r != null) {
        r.run();
      }
    }
    runAll();
    return f.get();
  }

  /** Run what is queued now. */
  void runAll() {
    Runnable r;
    while ((r = tasks.poll()) != null) {
      r.run();
    }
  }

  /** Run tasks until {@code done} holds (15 s at most). */
  void until(java.util.function.BooleanSupplier done, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("waited 15 s for " + what);
      }
      Runnable r = tasks.poll(10, TimeUnit.MILLISECONDS);
      if (r != null) {
        r.run();
      }
    }
  }
}
