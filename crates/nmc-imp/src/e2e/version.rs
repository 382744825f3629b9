//! Which software version's end-to-end procedure an IMP runs: the profile's
//! `message_processing` picks `V2` (`e2e/v2.rs`) or `V3` (`e2e/v3.rs`) ([`of`]), and an IMP
//! reads its own through [`Imp::procedure`]. Kept apart from `e2e/procedure.rs`, the trait the
//! versions implement, so that the trait names none of its implementations, and the IMP
//! (`imp.rs`) holds no procedure of its own: nothing below `e2e/` names `e2e/` (issue 72: no
//! file circles).

use super::procedure::Procedure;
use super::v2::V2;
use super::v3::V3;
use crate::imp::Imp;
use crate::params::MessageProcessing;

/// The procedure of software version `v` (the profile's `message_processing`).
pub(crate) fn of(v: MessageProcessing) -> &'static dyn Procedure {
    match v {
        MessageProcessing::V2 => &V2,
        MessageProcessing::V3 => &V3,
    }
}

impl Imp {
    /// The end-to-end procedure of this IMP's software version
    /// ([`crate::imp::SourceLimits::version`]).
    #[inline]
    pub(crate) fn procedure(&self) -> &'static dyn Procedure {
        of(self.limits.source.version)
    }
}
