import Foundation
import NIOSSL
import PostgresNIO

/// How a shared gallery's connection is protected: libpq's `sslmode` and
/// `sslrootcert`, read from the URL's query. Face descriptors are biometric
/// data: without TLS they cross the network in clear text.
struct PostgresSecurity: Equatable {
  enum Mode: String, CaseIterable {
    /// No TLS.
    case disable
    /// TLS when the server offers it, without checking its certificate; in clear otherwise (the default).
    case prefer
    /// TLS or no connection; the certificate is checked only against a root certificate given.
    case require
    /// TLS with a certificate signed by the root certificate.
    case verifyCA = "verify-ca"
    /// As verify-ca, and the certificate names the host of the URL.
    case verifyFull = "verify-full"
  }

  var mode: Mode
  /// The root certificates (PEM) the server's certificate must chain to.
  var rootCertificate: String?

  init(_ query: [URLQueryItem], display: String) throws(GalleryError) {
    var mode = Mode.prefer
    var rootCertificate: String?
    for item in query {
      switch item.name {
      case "sslmode":
        guard let value = item.value, let chosen = Mode(rawValue: value) else {
          throw GalleryError(
            .unavailable, "\(display): sslmode=\(item.value ?? "") is not a TLS mode",
            help: "give sslmode one of: \(Mode.allCases.map(\.rawValue).joined(separator: ", ")) (docs/gallery.md)")
        }
        mode = chosen
      case "sslrootcert":
        rootCertificate = item.value
      default:
        throw GalleryError(
          .unavailable, "\(display): the URL's '\(item.name)' is not read",
          help: "a gallery URL takes sslmode and sslrootcert in its query, as libpq does")
      }
    }
    if let rootCertificate, !FileManager.default.isReadableFile(atPath: rootCertificate) {
      throw GalleryError(
        .unavailable, "\(display): sslrootcert=\(rootCertificate) cannot be read",
        help: "give the PEM file of the certificate authority that signed the server's certificate")
    }
    if (mode == .verifyCA || mode == .verifyFull), rootCertificate == nil {
      throw GalleryError(
        .unavailable, "\(display): sslmode=\(mode.rawValue) needs sslrootcert",
        help: "add sslrootcert=PATH, the PEM file of the authority that signed the server's certificate")
    }
    self.mode = mode
    self.rootCertificate = rootCertificate
  }

  func connectionTLS() throws(GalleryError) -> PostgresConnection.Configuration.TLS {
    guard mode != .disable else { return .disable }
    var configuration = TLSConfiguration.makeClientConfiguration()
    switch mode {
    case .disable, .prefer: configuration.certificateVerification = .none
    // libpq's rule: a root certificate given makes require check the chain, as verify-ca does.
    case .require: configuration.certificateVerification = rootCertificate == nil ? .none : .noHostnameVerification
    case .verifyCA: configuration.certificateVerification = .noHostnameVerification
    case .verifyFull: configuration.certificateVerification = .fullVerification
    }
    if let rootCertificate { configuration.trustRoots = .file(rootCertificate) }
    let context: NIOSSLContext
    do {
      context = try NIOSSLContext(configuration: configuration)
    } catch {
      throw GalleryError(
        .unavailable, "sslrootcert=\(rootCertificate ?? ""): the certificates cannot be read (\(error))",
        help: "give a PEM file of one or more certificates")
    }
    return mode == .prefer ? .prefer(context) : .require(context)
  }

  /// The error of a connection that failed, naming the mode when TLS is why.
  func connectionFailure(_ error: any Error, display: String, reason: String) -> GalleryError {
    let text = String(reflecting: error)
    if mode != .disable, mode != .prefer, text.contains("sslUnsupported") {
      return GalleryError(
        .unavailable, "\(display): the server does not offer TLS, and sslmode=\(mode.rawValue) requires it",
        help:
          "turn TLS on in the server (ssl = on, docs/gallery.md), or connect with sslmode=prefer on a trusted network")
    }
    if error is NIOSSLError || text.contains("NIOSSL") || text.contains("handshake")
      || text.contains("certificate")
    {
      return GalleryError(
        .unavailable,
        "\(display): the TLS handshake failed with sslmode=\(mode.rawValue): \(reason)",
        help: mode == .verifyFull
          ? "the server's certificate must be signed by sslrootcert and name the URL's host"
          : "check that the server's certificate is signed by the authority of sslrootcert")
    }
    return GalleryError(
      .unavailable, "\(display): cannot connect: \(reason)",
      help: "check that the server runs and takes connections from this machine, and the user and database in the URL")
  }
}
