module github.com/eventproof/eventproof/examples/go

go 1.19
