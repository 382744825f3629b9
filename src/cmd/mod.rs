//! One module per subcommand.

pub mod bench;
pub mod progress;
pub mod reproduce;
pub mod run;
