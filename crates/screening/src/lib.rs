//! Sanctions and PEP list loaders, name normalisation, explainable matcher and in-memory index.
