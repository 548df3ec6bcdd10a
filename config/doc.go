// Package config reads yorozu's configuration from the environment once,
// validates it and reports every bad value by the name of its variable.
// Nothing else in yorozu reads the environment.
package config
