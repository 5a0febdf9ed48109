import HTTPTypes

extension HTTPField.Name {
    /// A header name written in papertrade's source, never one taken from a request.
    ///
    /// `HTTPField.Name(_:)` is failable for text that is not an HTTP token; every name passed here is a literal token
    /// that the server tests send or read, so this is the one place the server unwraps without a check (swift-format's
    /// NeverForceUnwrap rule keeps it the only one).
    static func literal(_ name: StaticString) -> HTTPField.Name {
        // swift-format-ignore: NeverForceUnwrap
        HTTPField.Name(name.description)!
    }
}
