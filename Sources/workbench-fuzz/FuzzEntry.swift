// The fuzz targets of workbench (docs/fuzzing.md), run by scripts/fuzz.
//
// Built with `-sanitize=fuzzer,address -D WORKBENCH_FUZZING`, it hands its
// arguments to libFuzzer's driver for the target WORKBENCH_FUZZ_TARGET names.
// Built plainly, this is the tool around them:
//
//   workbench-fuzz list                       the targets and what they read
//   workbench-fuzz seeds NAME FOLDER          writes a target's seed corpus
//   workbench-fuzz dictionary NAME            the path of its dictionary, if any
//   workbench-fuzz replay NAME FILE...        runs saved inputs; exit 1 if a rule breaks
import Foundation
import FuzzTargets

#if WORKBENCH_FUZZING
  nonisolated(unsafe) private var selected: FuzzTarget?

  @_silgen_name("LLVMFuzzerRunDriver")
  private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt

  /// The package manager makes an executable's entry point this symbol
  /// rather than `main`, so libFuzzer's own `main` is never linked: this
  /// hands the arguments to its driver instead.
  @_cdecl("workbench_fuzz_main")
  public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    let name = ProcessInfo.processInfo.environment["WORKBENCH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.named(name) else {
      let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
      FileHandle.standardError.write(Data("error: set WORKBENCH_FUZZ_TARGET to one of: \(names)\n".utf8))
      return 2
    }
    selected = target
    atexit { FuzzTargets.removeScratch() }
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
  }

  private func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = selected else { return 0 }
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let broken = target.check(input)
    if !broken.isEmpty {
      FileHandle.standardError.write(Data("\(target.name): \(broken.joined(separator: "\n"))\n".utf8))
      abort()
    }
    return 0
  }
#else
  @main
  struct FuzzTool {
    static func main() {
      let arguments = Array(CommandLine.arguments.dropFirst())
      defer { FuzzTargets.removeScratch() }
      switch arguments.first {
      case "list":
        let width = FuzzTargets.all.map(\.name.count).max() ?? 0
        for target in FuzzTargets.all {
          print(target.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + target.summary)
        }
      case "seeds" where arguments.count == 3:
        let target = named(arguments[1])
        let written = FuzzSeeds.write(target, into: arguments[2])
        print("\(target.name): \(written) seed inputs in \(arguments[2])")
      case "dictionary" where arguments.count == 2:
        if let dictionary = named(arguments[1]).dictionary { print(dictionary) }
      case "replay" where arguments.count >= 3:
        let target = named(arguments[1])
        var failed = 0
        for path in arguments.dropFirst(2) {
          guard let data = FileManager.default.contents(atPath: path) else {
            fail("cannot read \(path)")
          }
          let broken = target.check(Array(data))
          if !broken.isEmpty {
            failed += 1
            print("\(path): \(broken.joined(separator: "; "))")
          }
        }
        print("\(target.name): \(arguments.count - 2 - failed) of \(arguments.count - 2) inputs hold")
        if failed > 0 { exit(1) }
      default:
        fail("usage: workbench-fuzz list | seeds NAME FOLDER | dictionary NAME | replay NAME FILE...")
      }
    }

    static func named(_ name: String) -> FuzzTarget {
      guard let target = FuzzTargets.named(name) else {
        fail("no fuzz target '\(name)'; `workbench-fuzz list` names them")
      }
      return target
    }

    static func fail(_ message: String) -> Never {
      FileHandle.standardError.write(Data("error: \(message)\n".utf8))
      exit(2)
    }
  }
#endif
