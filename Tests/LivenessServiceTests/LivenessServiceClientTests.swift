import Foundation
import HTTPTestSupport
import Hummingbird
import LivenessService
import NIOSSL
import TestSupport
import Testing

/// Three bytes of a JPEG's start: enough for the server, which never decodes it.
let jpegBytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 2000) + [0xFF, 0xD9]

@Suite("The liveness service's client, against a server on loopback", .serialized)
struct LivenessServiceClientTests {
  @Test("posts the image as the multipart part `images` and reads the answer")
  func posts() async throws {
    let script = LivenessServiceDouble([.answer(LivenessServiceDouble.live(0.91, quality: 0.66))])
    let completed = try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let client = try LivenessServiceClient(url: "http://127.0.0.1:\(port)/6/liveness", timeout: 30)
        #expect(client.submit(jpeg: jpegBytes, frame: 7))
        #expect(!client.submit(jpeg: jpegBytes, frame: 8), "one request on its way at most")
        return client.waitForAnswer()
      }
    }
    let answer = try #require(completed)
    #expect(answer.frame == 7)
    #expect(try answer.result.get() == LivenessAnswer(probability: 0.91, quality: 0.66, prediction: .real))
    let sent = try #require(script.received.first)
    #expect(sent.type.hasPrefix("multipart/form-data; boundary="))
    let boundary = String(sent.type.split(separator: "=", maxSplits: 1)[1])
    let text = String(decoding: sent.body, as: UTF8.self)
    #expect(text.hasPrefix("--\(boundary)\r\n"))
    #expect(text.contains("Content-Disposition: form-data; name=\"images\"; filename=\"frame-7.jpg\"\r\n"))
    #expect(text.contains("Content-Type: image/jpeg\r\n\r\n"))
    #expect(text.hasSuffix("\r\n--\(boundary)--\r\n"))
    // The image's bytes arrive whole, between the part's header and the closing boundary.
    let start = try #require(sent.body.indices.first { sent.body[$0...].starts(with: [0xFF, 0xD8, 0xFF]) })
    #expect(Array(sent.body[start..<(start + jpegBytes.count)]) == jpegBytes)
  }

  @Test("a 5xx is tried once more; the second answer counts")
  func retries() async throws {
    let script = LivenessServiceDouble([.status(503), .answer(LivenessServiceDouble.live(0.2))])
    let (completed, attempts) = try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let client = try LivenessServiceClient(url: "http://127.0.0.1:\(port)/liveness", timeout: 30)
        #expect(client.submit(jpeg: jpegBytes, frame: 1))
        return (client.waitForAnswer(), client.attempts)
      }
    }
    #expect(try completed?.result.get().probability == 0.2)
    #expect(attempts == 2 && script.requests == 2)
  }

  @Test("a 5xx twice, or a 4xx once, is the status's failure")
  func statuses() async throws {
    for (reply, tries) in [(LivenessServiceDouble.Reply.status(500), 2), (.status(403), 1)] {
      let script = LivenessServiceDouble([reply])
      let completed = try await withLoopbackServer(respond: script.respond) { port in
        try await offThePool {
          let client = try LivenessServiceClient(url: "http://127.0.0.1:\(port)/liveness", timeout: 30)
          #expect(client.submit(jpeg: jpegBytes, frame: 1))
          return client.waitForAnswer()
        }
      }
      guard case .failure(let error) = try #require(completed).result else {
        Issue.record("\(reply) gave an answer")
        continue
      }
      #expect(error.kind == .status && script.requests == tries, "\(error)")
    }
  }

  @Test("an answer that does not parse is not tried again")
  func badAnswer() async throws {
    let script = LivenessServiceDouble([.answer("{\"images\": []}")])
    let completed = try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let client = try LivenessServiceClient(url: "http://127.0.0.1:\(port)/liveness", timeout: 30)
        #expect(client.submit(jpeg: jpegBytes, frame: 1))
        return client.waitForAnswer()
      }
    }
    guard case .failure(let error) = try #require(completed).result else { throw ExpectedFailure() }
    #expect(error.kind == .badAnswer && script.requests == 1)
  }

  @Test("a slow service times out, twice, and the frame loop is never held up meanwhile")
  func slow() async throws {
    let script = LivenessServiceDouble([.slow(3, LivenessServiceDouble.live(0.9))])
    let (completed, pending, elapsed) = try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let client = try LivenessServiceClient(url: "http://127.0.0.1:\(port)/liveness", timeout: 0.3)
        #expect(client.submit(jpeg: jpegBytes, frame: 1))
        let pending = client.takeAnswer()
        let start = Date()
        let completed = client.waitForAnswer()
        return (completed, pending, Date().timeIntervalSince(start))
      }
    }
    #expect(pending == nil, "the answer cannot have come at once")
    guard case .failure(let error) = try #require(completed).result else { throw ExpectedFailure() }
    #expect(error.kind == .timeout, "\(error)")
    #expect(elapsed < 2.5, "two tries of 0.3 s, not the server's 3 s: \(elapsed) s")
  }

  @Test("nothing listening is unreachable")
  func dead() throws {
    let port = try freeLoopbackPort()
    let client = try LivenessServiceClient(url: "http://127.0.0.1:\(port)/liveness", timeout: 5)
    #expect(client.submit(jpeg: jpegBytes, frame: 1))
    guard case .failure(let error) = try #require(client.waitForAnswer()).result else { throw ExpectedFailure() }
    #expect(error.kind == .unreachable, "\(error)")
    #expect(client.attempts == 2)
  }

  @Test("a URL that is not http(s) is refused at once")
  func notAURL() {
    for url in ["ftp://host/liveness", "127.0.0.1:8080", "http://"] {
      #expect(throws: LivenessServiceError.self) { try LivenessServiceClient(url: url, timeout: 1) }
    }
  }

  @Test("HTTPS, trusting the server's own certificate through pad.ca_file's path")
  func https() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (certificate, key) = try selfSignedCertificate(in: folder)
    var tls = TLSConfiguration.makeServerConfiguration(
      certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
      privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
    tls.minimumTLSVersion = .tlsv12
    let script = LivenessServiceDouble([.answer(LivenessServiceDouble.live(0.77))])
    let (trusted, untrusted) = try await withLoopbackServer(tls: tls, respond: script.respond) { port in
      try await offThePool {
        let url = "https://127.0.0.1:\(port)/6/liveness"
        let trusting = try LivenessServiceClient(url: url, timeout: 30, caFile: certificate)
        #expect(trusting.submit(jpeg: jpegBytes, frame: 1))
        let trusted = trusting.waitForAnswer()
        let other = try LivenessServiceClient(url: url, timeout: 30)
        #expect(other.submit(jpeg: jpegBytes, frame: 1))
        return (trusted, other.waitForAnswer())
      }
    }
    #expect(try trusted?.result.get().probability == 0.77)
    guard case .failure(let error) = try #require(untrusted).result else {
      throw ExpectedFailure()
    }
    #expect(error.kind == .unreachable, "a certificate nobody trusts is no connection: \(error)")
  }

  @Test("a trust file that cannot be read is refused at once, naming it")
  func badTrustFile() {
    #expect {
      _ = try LivenessServiceClient(url: "https://127.0.0.1:1/", timeout: 1, caFile: "/nonexistent/ca.pem")
    } throws: { error in
      (error as? LivenessServiceError)?.message.contains("/nonexistent/ca.pem") == true
    }
  }
}

struct ExpectedFailure: Error {}

/// A certificate for 127.0.0.1 and its key, made with the openssl command.
func selfSignedCertificate(in folder: TemporaryFolder) throws -> (certificate: String, key: String) {
  let certificate = folder.file("service.pem")
  let key = folder.file("service-key.pem")
  let run = try Spawn.run(
    "/usr/bin/openssl",
    [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
      "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ])
  #expect(run.status == 0, "\(run.stderr)")
  return (certificate, key)
}
