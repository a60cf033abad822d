import Testing
import UtensilCore
@testable import UtensilWatch

@Suite("coalescing, delivery and paths")
struct CoalescingTests {
    let a = bytes("/in/a.jpg"), b = bytes("/in/b.jpg"), folder = bytes("/in/f"), inFolder = bytes("/in/f/x.jpg")

    @Test func duplicatesCollapse() {
        let out = BatchCoalescer.coalesce([.candidate(path: a), .candidate(path: b), .candidate(path: a)])
        #expect(out == [.candidate(path: a), .candidate(path: b)])
    }

    @Test func appearedFolderCoversWhatIsBelowIt() {
        let deeper = bytes("/in/f/g")
        let out = BatchCoalescer.coalesce([
            .candidate(path: inFolder), .folderAppeared(path: folder), .folderAppeared(path: deeper),
            .candidate(path: bytes("/in/fx.jpg")),
        ])
        #expect(out == [.folderAppeared(path: folder), .candidate(path: bytes("/in/fx.jpg"))])
    }

    @Test func overflowCoversItsStretchButNotInboxChanges() {
        let out = BatchCoalescer.coalesce([
            .candidate(path: a), .overflow, .candidate(path: b), .inboxGone, .inboxBack, .candidate(path: a),
        ])
        #expect(out == [.overflow, .inboxGone, .inboxBack, .candidate(path: a)])
    }

    @Test func overflowKeepsTheMessagesOfFoldersLeftUnwatched() {
        let limit = WatchError.watchLimitReached(path: folder)
        let out = BatchCoalescer.coalesce([
            .candidate(path: a), .unwatched(limit), .overflow, .unwatched(limit), .candidate(path: b),
        ])
        #expect(out == [.unwatched(limit), .overflow])
    }

    @Test func pollingReportsAnIncompleteListingOnceUntilItIsWholeAgain() {
        let walker = FolderWalker(skipFolder: skipRule, excluded: [])
        let whole = TreeSnapshot()
        var short = TreeSnapshot()
        short.unlisted = .folderNotWatched(path: folder, errno: 24)
        var state = PollingState(inbox: bytes("/in"), walker: walker, previous: whole)
        let problem = WatchEvent.unwatched(.folderNotWatched(path: folder, errno: 24))
        #expect(state.report(listing: short) == [problem])
        #expect(state.report(listing: short) == [])
        #expect(state.report(listing: whole) == [])
        #expect(state.report(listing: short) == [problem])
    }

    @Test func outletTurnsWhatDoesNotFitIntoOneOverflow() async {
        let (stream, continuation) = AsyncStream.makeStream(of: WatchEvent.self, bufferingPolicy: .bufferingOldest(2))
        var outlet = EventOutlet(continuation)
        outlet.send([.candidate(path: a), .candidate(path: b), .candidate(path: inFolder), .folderAppeared(path: folder)])
        #expect(outlet.backlog == [.overflow])
        outlet.send(.inboxGone)
        outlet.send(.candidate(path: a))
        #expect(outlet.backlog == [.overflow, .inboxGone, .overflow])
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .candidate(path: a))
        #expect(await iterator.next() == .candidate(path: b))
        outlet.flush()  // two slots free: the first two backlog entries move in, in order
        #expect(outlet.backlog == [.overflow])
        #expect(await iterator.next() == .overflow)
        #expect(await iterator.next() == .inboxGone)
        outlet.flush()
        #expect(outlet.backlog.isEmpty)
        outlet.finish()
        #expect(await iterator.next() == .overflow)
        #expect(await iterator.next() == nil)
    }

    @Test func watchTableFindsSubtreesOnComponentBoundaries() {
        var table = WatchTable()
        table.set(1, path: bytes("/in"))
        table.set(2, path: bytes("/in/a"))
        table.set(3, path: bytes("/in/a/b"))
        table.set(4, path: bytes("/in/ab"))
        #expect(table.watches(under: bytes("/in/a")) == [2, 3])
        #expect(table.watches(under: bytes("/in")) == [1, 2, 3, 4])
        #expect(table.watches(under: bytes("/in/unwatched")).isEmpty)
        // A re-walk after lost events re-points a renamed subtree, top-down.
        table.set(2, path: bytes("/in/renamed"))
        table.set(3, path: bytes("/in/renamed/b"))
        #expect(table.watches(under: bytes("/in/a")).isEmpty)
        #expect(table.watches(under: bytes("/in/renamed")) == [2, 3])
        table.remove(3)
        table.remove(2)
        #expect(table.watches(under: bytes("/in/renamed")).isEmpty)
        #expect(table.count == 2)
    }

    @Test func rawPathHelpers() {
        #expect(RawPath("/in").appending("x") == RawPath("/in/x"))
        #expect(RawPath("/").appending("x") == RawPath("/x"))
        #expect(RawPath("/in//").normalized == RawPath("/in"))
        #expect(RawPath("/").normalized == RawPath("/"))
        #expect(RawPath("/a/b/c").ancestors == [RawPath("/a/b"), RawPath("/a"), RawPath("/")])
        #expect(RawPath("/a/b").isDescendant(of: RawPath("/a")))
        #expect(!RawPath("/ab").isDescendant(of: RawPath("/a")))
        #expect(!RawPath("/a").isDescendant(of: RawPath("/a")))
        #expect(RawPath("/a").isSelfOrDescendant(of: RawPath("/a")))
        #expect(RawPath("/a/b").isSelfOrDescendant(of: RawPath("/")))
    }
}
