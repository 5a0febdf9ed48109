import Testing
import TradingCore

@testable import Brokerage

@Suite("Backtest jobs kept in memory")
struct BacktestJobsTests {
    static func job(_ n: Int, user: UserID, status: BacktestJobs.Status = .done) -> BacktestJobs.Job {
        BacktestJobs.Job(
            id: "job-\(n)", userID: user,
            request: .init(
                symbols: ["AAPL"], from: CivilDate(2024, 1, 2), to: CivilDate(2024, 6, 28), strategy: "sma-cross"),
            status: status, createdAt: Timestamp(seconds: 1_800_000_000 + Int64(n)), finishedAt: nil, error: nil,
            result: nil, progress: BacktestJobs.ProgressBox())
    }

    @Test(
        "a user keeps their newest finished jobs, everyone together the newest in all; running ones are never forgotten"
    )
    func bounds() {
        let (alice, bob) = (UserID("alice"), UserID("bob"))
        // Alice's 0…5 and Bob's 10…13 finished; Alice's 6 still running.
        let jobs =
            (0...5).map { Self.job($0, user: alice) } + [Self.job(6, user: alice, status: .running)]
            + (10...13).map { Self.job($0, user: bob) }
        // Alice keeps her newest 3 finished (5, 4, 3); then the newest 5 of all that remain: Bob's 13…10 and her 5.
        let gone = Set(BacktestJobs.forgotten(jobs, after: alice, perUser: 3, inAll: 5))
        #expect(gone == ["job-0", "job-1", "job-2", "job-3", "job-4"])
        #expect(!gone.contains("job-6"), "a running job stays")
        #expect(BacktestJobs.forgotten(jobs, after: bob, perUser: 20, inAll: 500).isEmpty)
    }
}
