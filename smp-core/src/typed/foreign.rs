//! `StrategicMerge` for scalar types of other crates (their JSON form is a
//! string or a number): `std::net` addresses, and behind smp-core's
//! features `url`, `chrono` and `jiff`, the types of those crates. A patch
//! replaces such a value whole; a patch value that does not parse is an
//! error at the field's path.
//!
//! [`shapes`] gives the schemas behind `#[patch(scalar)]` and
//! `#[patch(json)]`, for field types that have no impl at all.

use super::Walk;
use crate::schema::Shape;

macro_rules! foreign_scalar {
    ($($(#[$cfg:meta])* $t:ty),* $(,)?) => {$(
        $(#[$cfg])*
        impl Walk for $t {
            const __SCALAR: bool = true;
            fn __shape() -> Shape {
                Shape::Scalar
            }
        }
        $(#[$cfg])*
        impl super::checks::Scalar for $t {}
    )*};
}

foreign_scalar! {
    char,
    std::net::IpAddr,
    std::net::Ipv4Addr,
    std::net::Ipv6Addr,
    std::net::SocketAddr,
    std::net::SocketAddrV4,
    std::net::SocketAddrV6,
    #[cfg(feature = "url")] url::Url,
    #[cfg(feature = "chrono")] chrono::DateTime<chrono::Utc>,
    #[cfg(feature = "chrono")] chrono::DateTime<chrono::FixedOffset>,
    #[cfg(feature = "chrono")] chrono::NaiveDate,
    #[cfg(feature = "chrono")] chrono::NaiveDateTime,
    #[cfg(feature = "chrono")] chrono::NaiveTime,
    #[cfg(feature = "jiff")] jiff::Timestamp,
    #[cfg(feature = "jiff")] jiff::SignedDuration,
    #[cfg(feature = "jiff")] jiff::civil::Date,
    #[cfg(feature = "jiff")] jiff::civil::DateTime,
    #[cfg(feature = "jiff")] jiff::civil::Time,
}

/// Schemas for `#[patch(with = "...")]`, behind the shorthands
/// `#[patch(scalar)]` and `#[patch(json)]` of the derive.
pub mod shapes {
    /// A value serialised as a string, number or boolean: a patch replaces
    /// it whole. `#[patch(scalar)]` is `#[patch(with = "smp_core::typed::shapes::scalar")]`.
    pub mod scalar {
        /// [`Shape::Scalar`](crate::Shape::Scalar).
        pub fn shape() -> crate::Shape {
            crate::Shape::Scalar
        }
    }

    /// Any JSON, merged without patch metadata: objects merge key by key,
    /// lists are replaced. `#[patch(json)]` is `#[patch(with = "smp_core::typed::shapes::json")]`.
    pub mod json {
        /// [`Shape::Any`](crate::Shape::Any).
        pub fn shape() -> crate::Shape {
            crate::Shape::Any
        }
    }
}
