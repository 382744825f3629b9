//! One module per experiment. Each states its source, its scenario and its targets.

pub mod golden_chain;
pub mod ko_alternate_path;
pub mod ko_looping;
pub mod ko_routing_tables;
pub mod ko_v2_throughput;
pub mod ko_v3_throughput;
pub mod md1;
pub mod r889_estimators;
pub mod rfc392_host_cost;
pub mod rfc508_realtime;
pub mod rfc626_lockup;
pub mod rfc632_single_packet;
pub mod rfc632_trace;
pub mod rfc889_arpanet;
pub mod rfc889_delay;
pub mod rfc889_paths;
