//! One module per subcommand.

pub mod bench;
pub mod cost;
pub mod echo;
pub mod progress;
pub mod pump;
pub mod reproduce;
pub mod rto;
pub mod run;
pub mod scenarios;
pub mod stream;
pub mod sweep;
