import Foundation

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Money written as the decimal a person reads (`mrr == 14.99`): the literal's shortest text is
/// the exact decimal, compared with the report's rounded amount.
extension Money: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
  public init(floatLiteral value: Double) { self.init(exactly: Decimal(string: String(value))!) }
  public init(integerLiteral value: Int) { self.init(exactly: Decimal(value)) }
}
