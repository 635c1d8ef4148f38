module github.com/replymock/replymock

go 1.26.0

require (
	github.com/brianvoe/gofakeit/v6 v6.28.0
	github.com/gorilla/mux v1.8.1
	golang.org/x/text v0.43.0
	gopkg.in/yaml.v3 v3.0.1
)
