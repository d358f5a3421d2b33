// Estimators
