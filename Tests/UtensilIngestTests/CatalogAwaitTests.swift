import Foundation
import Glibc
import Testing
import UtensilCatalogModel
@testable import UtensilStore

/// ``CatalogAwait``: how the store and the engine, on threads of their own, call the async
/// catalog. Each test runs it on a thread of its own, as the store's callers do.
@Suite("CatalogAwait")
struct CatalogAwaitTests {
    /// Runs `body` on a new thread and waits for it (the store's callers are such threads).
    private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    @Test func aCallThatAnswersAtOnceRunsOnTheCallingThread() async {
        let (caller, ran) = await onOwnThread { () -> (pthread_t, pthread_t) in
            let caller = pthread_self()
            let ran = CatalogAwait.run { () async -> pthread_t in pthread_self() }
            return (caller, ran)
        }
        #expect(pthread_equal(caller, ran) != 0)
    }

    @Test func aCallThatSuspendsResumesOnTheCallingThreadWithItsAnswer() async {
        let (caller, resumedOn, answer) = await onOwnThread { () -> (pthread_t, pthread_t, Int) in
            let caller = pthread_self()
            let (resumedOn, answer) = CatalogAwait.run { () async -> (pthread_t, Int) in
                // A reply that arrives from another thread, as a network catalog's would.
                let answer = await withCheckedContinuation { continuation in
                    DispatchQueue.global().async { continuation.resume(returning: 42) }
                }
                return (pthread_self(), answer)
            }
            return (caller, resumedOn, answer)
        }
        #expect(answer == 42)
        #expect(pthread_equal(caller, resumedOn) != 0)
    }

    @Test func aRefusalArrivesAsItsOwnType() async {
        let outcome = await onOwnThread { () -> Result<Int, CatalogError> in
            Result { () throws(CatalogError) in
                try CatalogAwait.run { () async throws(CatalogError) -> Int in
                    await Task.yield()
                    throw .duplicateName(existing: "Spoon")
                }
            }
        }
        #expect(outcome == .failure(.duplicateName(existing: "Spoon")))
    }

    /// `start`: a call runs up to its first wait before `start` returns (a remote catalog's
    /// request is sent), the thread is free meanwhile, and the rest runs on it in `result()`.
    @Test func aStartedCallSendsItsRequestAtOnceAndIsAnsweredOnTheCallingThread() async {
        let (sentBeforeReturn, answeredAtStart, caller, resumedOn, answer) = await onOwnThread {
            () -> (Bool, Bool, pthread_t, pthread_t, Int) in
            let caller = pthread_self()
            let request = DispatchSemaphore(value: 0)
            let reply = DispatchSemaphore(value: 0)
            let call = CatalogAwait.start { () async -> (pthread_t, Int) in
                let answer = await withCheckedContinuation { continuation in
                    request.signal()  // The request, sent.
                    DispatchQueue.global().async {
                        reply.wait()
                        continuation.resume(returning: 7)
                    }
                }
                return (pthread_self(), answer)
            }
            let sent = request.wait(timeout: .now()) == .success
            let answeredAtStart = call.isAnswered
            reply.signal()  // The server answers while this thread does other work.
            let (resumedOn, answer) = call.result()
            return (sent, answeredAtStart, caller, resumedOn, answer)
        }
        #expect(sentBeforeReturn)
        #expect(!answeredAtStart)
        #expect(answer == 7)
        #expect(pthread_equal(caller, resumedOn) != 0)
    }

    @Test func aStartedCallThatNeverWaitsIsAnsweredWhenStartReturns() async {
        let answered = await onOwnThread { () -> Bool in
            let call = CatalogAwait.start { () async -> Int in 3 }
            let answered = call.isAnswered
            return answered && call.result() == 3
        }
        #expect(answered)
    }

    /// A call whose answer is never asked for (the drop failed meanwhile) is still run to its
    /// end when its handle goes away: a remote catalog's connection is given back.
    @Test func aStartedCallNeverAskedForIsFinishedWhenDropped() async {
        let finished = await onOwnThread { () -> Bool in
            let done = DispatchSemaphore(value: 0)
            do {
                let call = CatalogAwait.start { () async -> Int in
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().async { continuation.resume() }
                    }
                    done.signal()
                    return 1
                }
                _ = call
            }
            return done.wait(timeout: .now()) == .success
        }
        #expect(finished)
    }
}
