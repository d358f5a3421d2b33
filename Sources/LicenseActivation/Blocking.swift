import Dispatch

/// Runs async code from the synchronous command line: the commands of
/// workbench parse and run synchronously, while the HTTP client and server
/// are async. The calling thread waits; the work runs on the global executor.
public enum Blocking {
  public static func run<T: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () async throws(Failure) -> T
  ) throws(Failure) -> T {
    let box = ResultBox<T, Failure>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
      do throws(Failure) {
        box.result = .success(try await body())
      } catch {
        box.result = .failure(error)
      }
      done.signal()
    }
    done.wait()
    // The semaphore orders the write before this read.
    return try box.result!.get()
  }
}

private final class ResultBox<T, Failure: Error>: @unchecked Sendable {
  var result: Result<T, Failure>?
}
