/// The default App Store purchase source of this platform (StoreKit 2 where it exists).
enum PurchaseSources {}
