// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Bindery",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Bindery", targets: ["Bindery"]),
        .executable(name: "bindery-demo", targets: ["Demo"]),
        .executable(name: "bindery-bench", targets: ["BinderyBenchmarks"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "Bindery",
            dependencies: ["CSQLite"]
        ),
        .executableTarget(
            name: "Demo",
            dependencies: ["Bindery"],
            path: "Examples/Demo"
        ),
        .executableTarget(
            name: "student-registry",
            dependencies: ["Bindery"],
            path: "Examples/StudentRegistry",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "accounts",
            dependencies: ["Bindery"],
            path: "Examples/Accounts",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "user-dal",
            dependencies: ["Bindery"],
            path: "Examples/UserDAL",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "persistence",
            dependencies: ["Bindery"],
            path: "Examples/Persistence",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "todo-sync",
            dependencies: ["Bindery"],
            path: "Examples/TodoSync",
            exclude: ["README.md"]
        ),
        // The Northwind fixture the tests and the benchmark read, expanded from Tests/Fixtures.
        .target(
            name: "NorthwindFixture",
            dependencies: ["CSQLite"]
        ),
        .executableTarget(
            name: "BinderyBenchmarks",
            dependencies: ["Bindery", "CSQLite", "NorthwindFixture"]
        ),
        .executableTarget(
            name: "bindery-migrate-helper",
            dependencies: ["Bindery"],
            path: "Sources/BinderyMigrateHelper"
        ),
        .executableTarget(
            name: "bindery-lock-helper",
            dependencies: ["Bindery"],
            path: "Sources/BinderyLockHelper"
        ),
        .executableTarget(
            name: "bindery-crash-writer",
            dependencies: ["Bindery"],
            path: "Sources/BinderyCrashWriter"
        ),
        .executableTarget(
            name: "bindery-replication-writer",
            dependencies: ["Bindery"],
            path: "Sources/BinderyReplicationWriter"
        ),
        .executableTarget(
            name: "bindery-replica-reader",
            dependencies: ["Bindery"],
            path: "Sources/BinderyReplicaReader"
        ),
        .executableTarget(
            name: "bindery-sync-worker",
            dependencies: ["Bindery"],
            path: "Sources/BinderySyncWorker"
        ),
        .testTarget(
            name: "BinderyTests",
            dependencies: [
                "Bindery", "CSQLite", "NorthwindFixture", "bindery-migrate-helper", "bindery-lock-helper",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
