// A minimal 6 nimmt! bot in C++, over gRPC with Debian's packages: the protocol and nothing else.
//
// It connects to ARENA_ADDRESS (host:port or unix:/path), says hello with ARENA_TOKEN, answers
// every request (its lowest card, row 0, the lowest draft card) and exits when the arena closes
// the stream. docs/writing-a-bot.md shows how to generate the code it includes and build it;
// `make bots` does both, into build/cpp/.

#include <cstdlib>
#include <iostream>
#include <memory>

#include <grpcpp/grpcpp.h>

#include "sixnimmt/v1/arena.grpc.pb.h"

namespace pb = sixnimmt::v1;

int main() {
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token = std::getenv("ARENA_TOKEN");
  if (address == nullptr || token == nullptr) {
    std::cerr << "no arena to connect to: set ARENA_ADDRESS and ARENA_TOKEN" << std::endl;
    return 2;
  }
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  std::unique_ptr<pb::Arena::Stub> arena = pb::Arena::NewStub(channel);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<pb::BotMessage, pb::ArenaMessage>> stream =
      arena->Play(&context);

  // skip_events: this bot keeps no state, so the arena sends it requests and fault notices only.
  pb::BotMessage hello;
  hello.mutable_hello()->set_token(token);
  hello.mutable_hello()->set_name("minimal-cpp");
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_skip_events(true);
  stream->Write(hello);

  pb::ArenaMessage message;
  while (stream->Read(&message)) {  // until the arena closes the stream
    if (message.kind_case() == pb::ArenaMessage::kFault) {
      std::cerr << "arena: fault: " << message.fault().message() << std::endl;
    }
    if (message.kind_case() != pb::ArenaMessage::kRequest) continue;  // anything else: skip it
    const pb::Request& request = message.request();
    pb::BotMessage reply;
    pb::Answer* answer = reply.mutable_answer();
    answer->set_request_id(request.request_id());
    if (request.decision() == pb::DECISION_ROW) {
      answer->set_row(0);
    } else if (request.decision() == pb::DECISION_DRAFT) {
      answer->set_card(request.view().table(0));
    } else {
      answer->set_card(request.view().hand(0));
    }
    stream->Write(reply);
  }
  stream->WritesDone();
  grpc::Status status = stream->Finish();
  if (!status.ok()) {
    std::cerr << "the arena ended the connection: " << status.error_message() << std::endl;
    return 1;
  }
  return 0;
}
