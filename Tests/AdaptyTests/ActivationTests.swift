import Foundation
import Testing
import TollgateAPI

@testable import Adapty

@Suite("Activation and profile delivery", .timeLimit(.minutes(5)))
struct ActivationTests {
  @Test("a second activation throws activateOnceError (3005)")
  func activateOnce() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let facade = harness.facade()
    try await facade.activate(harness.configuration())
    do {
      try await facade.activate(harness.configuration())
      Issue.record("a second activation succeeded")
    } catch {
      #expect(error.errorCode == 3005)
    }
    await facade.reset()
  }

  @Test("calls before activation throw notActivated (2002); calls during activation wait for it")
  func beforeActivation() async throws {
    let harness = Harness()
    let facade = harness.facade()
    do {
      _ = try await facade.runtime()
      Issue.record("expected notActivated")
    } catch {
      #expect(error.adaptyErrorCode == .notActivated)
    }
    let activation = Task { try await facade.activate(harness.configuration()) }
    #expect(await eventually { facade.activationStarted })
    let runtime = try await facade.runtime()
    try await activation.value
    #expect(facade.activeRuntime === runtime)
    await facade.reset()
  }

  @Test("relaunch delivers the cached profile to the delegate before any request completes")
  func relaunchDeliversCachedProfile() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let first = await harness.launch()
    let created = try await first.profiles.refresh()
    #expect(created.version == 1)
    await first.shutdown()

    // Launch 2: the network hangs, yet the delegate gets the cached profile.
    server.bump(created.profileId, sources: ["apple_ads"])
    harness.transport.hold()
    let delegate = RecordingDelegate()
    harness.delegates.delegate = delegate
    let second = await harness.launch()
    // Delivered during launch, while the refresh request is still held.
    #expect(delegate.profiles == [created])
    await harness.transport.held(atLeast: 1)
    #expect(delegate.profiles == [created])

    // The refresh then delivers the newer version, once.
    harness.transport.release()
    await delegate.wait(for: 2)
    #expect(delegate.profiles.map(\.version) == [1, 2])
    #expect(delegate.profiles.last?.appliedExternalAttributionProviders == [.appleAds])
    _ = try await second.profiles.refresh()  // 304: nothing new
    #expect(delegate.profiles.count == 2)
    await second.shutdown()
  }

  @Test("a delegate set after activation gets the current profile, and never the same version twice")
  func lateDelegate() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let runtime = await harness.launch()
    let profile = try await runtime.profiles.refresh()
    let delegate = RecordingDelegate()
    harness.delegates.delegate = delegate
    await runtime.broadcaster.deliverToDelegate()
    await runtime.broadcaster.deliverToDelegate()
    await runtime.broadcaster.publish(profile)
    #expect(delegate.profiles == [profile])
    let replacement = RecordingDelegate()
    harness.delegates.delegate = replacement
    await runtime.broadcaster.deliverToDelegate()
    #expect(replacement.profiles == [profile])
    await runtime.shutdown()
  }

  @Test("profileUpdates yields the current profile first, then each change")
  func profileUpdates() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let facade = harness.facade()
    let stream = facade.profileStream()  // opened before activation
    try await facade.activate(harness.configuration())
    let runtime = try await facade.runtime()
    var iterator = stream.makeAsyncIterator()
    let first = await iterator.next()
    #expect(first?.version == 1)
    server.bump(first!.profileId, sources: ["apple_ads"])
    _ = try await runtime.profiles.refresh()
    let second = await iterator.next()
    #expect(second?.version == 2)
    #expect(second?.appliedExternalAttributionProviders.contains(.appleAds) == true)

    let late = facade.profileStream()
    var lateIterator = late.makeAsyncIterator()
    #expect(await lateIterator.next()?.version == 2)
    await facade.reset()
  }

  @Test("identify attaches a customer user id; logout starts a new anonymous profile")
  func identifyAndLogout() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let runtime = await harness.launch()
    let anonymous = try await runtime.profiles.refresh()
    try await runtime.profiles.identify("user-1")
    let patch = try #require(harness.transport.requests.last { $0.method == "PATCH" })
    #expect(try WireCoding.decoder.decode(UpdateProfileRequest.self, from: patch.body!).customerUserId == "user-1")
    #expect(await runtime.profiles.profileId == anonymous.profileId)

    try await runtime.profiles.identify("user-2")
    let other = await runtime.profiles.profileId
    #expect(other != anonymous.profileId)
    let create = try #require(harness.transport.requests.last { $0.method == "POST" })
    #expect(try WireCoding.decoder.decode(CreateProfileRequest.self, from: create.body!).customerUserId == "user-2")

    try await runtime.profiles.logout()
    #expect(await runtime.profiles.profileId != other)
    await runtime.shutdown()
  }

  @Test("an empty customer user id is wrongParam (3001) and nothing is sent; in the configuration it is none")
  func emptyCustomerUserId() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let runtime = await harness.launch()
    _ = try await runtime.profiles.refresh()
    let sent = harness.transport.requests.count
    do {
      try await runtime.profiles.identify("")
      Issue.record("an empty customer user id was taken")
    } catch {
      #expect(error.adaptyErrorCode == .wrongParam)
    }
    #expect(harness.transport.requests.count == sent)
    await runtime.shutdown()
    let configuration = AdaptyConfiguration.builder(withAPIKey: "public_key").with(customerUserId: "").build()
    #expect(configuration.customerUserId == nil)
  }

  @Test("a corrupt or truncated file is ignored and logged, never a crash")
  func corruptFiles() async throws {
    let harness = Harness()
    try FileManager.default.createDirectory(at: harness.directory, withIntermediateDirectories: true)
    try Data("{\"profileId\":\"abc\",\"crea".utf8).write(to: harness.file(StoredFile.profile))
    try Data([0xFF, 0x00, 0x12]).write(to: harness.file(StoredFile.flows))
    try Data("[{\"type\":1}]".utf8).write(to: harness.file(StoredFile.events))
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let runtime = await harness.launch()
    let profile = try await runtime.profiles.refresh()
    #expect(UUID(uuidString: profile.profileId) != nil)
    #expect(await runtime.events.count == 0)
    let flow = try await runtime.placements.flow(
      placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: nil)
    #expect(flow.source == .segmented)
    // The files are whole again.
    #expect(
      try WireCoding.decoder.decode(ProfileState.self, from: Data(contentsOf: harness.file(StoredFile.profile)))
        .profileId == profile.profileId)
    await runtime.shutdown()
  }

  @Test("custom attribute parameters are checked before anything is sent")
  func parameters() throws {
    let builder = AdaptyProfileParameters.Builder()
    try builder.with(customAttribute: "gold", forKey: "plan").with(customAttribute: 3, forKey: "level")
    try builder.withRemoved(customAttributeForKey: "old")
    let expected: [String: AdaptyCustomAttributeValue?] = ["plan": .string("gold"), "level": .number(3), "old": .none]
    #expect(builder.build().customAttributes == expected)
    #expect(throws: AdaptyError.self) { try builder.with(customAttribute: "x", forKey: "bad key") }
    #expect(throws: AdaptyError.self) {
      try builder.with(customAttribute: String(repeating: "x", count: 51), forKey: "k")
    }
  }
}
