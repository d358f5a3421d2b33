import Foundation
import Licensing

/// The activations, and the decisions made with them. One at a time, so
/// that two machines never take the last slot together, on a serial queue
/// of their own rather than an actor: each decision writes and syncs the
/// state file, blocking work that must not hold the few threads that
/// answer every other request (health waited behind queued activations).
final class ActivationLedger: @unchecked Sendable {
  enum Decision: Sendable {
    case issued(License, Data, slot: Int, again: Bool)
    case refused(ActivationProblem)
    case failed(String)
  }

  let configuration: ActivationServerConfiguration
  let issuer: LicenseIssuer
  /// Every use of `records` runs on this queue; that is what makes the
  /// class safe to share.
  private let queue = DispatchQueue(label: "workbench.activation-ledger")
  private var records: [ActivationState.Record]

  init(configuration: ActivationServerConfiguration, records: [ActivationState.Record]) {
    self.configuration = configuration
    self.issuer = LicenseIssuer(privateKey: configuration.privateKey)
    self.records = records
  }

  func count(eid: String) async -> Int {
    await onQueue { $0.records.filter { $0.eid == eid }.count }
  }

  func activate(_ request: ActivationRequest, now: Date) async -> Decision {
    await onQueue { $0.decide(request, now: now) }
  }

  private func onQueue<T: Sendable>(_ work: @escaping @Sendable (ActivationLedger) -> T) async -> T {
    await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: work(self)) }
    }
  }

  private func decide(_ request: ActivationRequest, now: Date) -> Decision {
    guard request.product == configuration.product else {
      return .refused(
        ActivationProblem(
          .wrongProduct,
          "this server issues licenses for product '\(configuration.product)', not '\(request.product)'"))
    }
    guard let limit = configuration.limits[request.eid] else {
      return .refused(ActivationProblem(.unknownEID, "EID '\(request.eid)' is not allowed on this server"))
    }
    let held = records.indices.filter { records[$0].eid == request.eid }
    let fingerprint = request.binding == .container ? nil : request.binding.fingerprintValue
    let existing = fingerprint.flatMap { value in held.first { records[$0].fingerprint == value } }
    if existing == nil, held.count >= limit {
      return .refused(
        ActivationProblem(
          .limitReached,
          "EID '\(request.eid)' is activated on \(held.count) of \(limit) machine\(limit == 1 ? "" : "s"); "
            + "no activation is left"))
    }
    let license = License(
      product: configuration.product, eid: request.eid, binding: request.binding, issued: now,
      expires: now.addingTimeInterval(Double(configuration.days) * 86_400), features: configuration.features)
    let data: Data
    do {
      data = try issuer.issue(license)
    } catch {
      return .failed("cannot issue the license: \(error.diagnostics.map(\.message).joined(separator: "; "))")
    }
    var updated = records
    let slot: Int
    if let existing {
      updated[existing].licenseID = license.id
      updated[existing].lastActivated = license.issued
      slot = held.firstIndex(of: existing).map { $0 + 1 } ?? 1
    } else {
      updated.append(
        ActivationState.Record(
          eid: request.eid, product: request.product, fingerprint: fingerprint, licenseID: license.id,
          firstActivated: license.issued, lastActivated: license.issued))
      slot = held.count + 1
    }
    if let path = configuration.statePath {
      do {
        try ActivationState.write(updated, to: path)
      } catch {
        return .failed(
          "cannot record the activation in \(path): \(error.diagnostics.map(\.message).joined(separator: "; "))")
      }
    }
    records = updated
    return .issued(license, data, slot: slot, again: existing != nil)
  }
}

extension LicenseBinding {
  fileprivate var fingerprintValue: String? {
    if case .machine(let fingerprint) = self { return fingerprint.value }
    return nil
  }
}
