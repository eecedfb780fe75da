//! Domain of rics: resources, rules, use-case services and ports.
