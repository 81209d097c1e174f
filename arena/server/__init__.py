"""The arena server and bot processes: the gRPC service and its handshake (`service`), one
bot's stream (`connection`), bot processes (`process`), the bots of a session (`lobby`), the
remote player (`remote`) and a running arena to play games in (`session`)."""
