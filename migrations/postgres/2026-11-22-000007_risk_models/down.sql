DROP TABLE risk_models;
