"""The generated protobuf and gRPC modules, under stable names.

Every other layer imports the wire types from here (`from arena.protocol import pb, rpc`), never
from `arena._proto`, so a change of package path or generator touches this file alone.
"""

from arena._proto.sixnimmt.v1 import arena_pb2 as pb
from arena._proto.sixnimmt.v1 import arena_pb2_grpc as rpc

SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["Arena"].full_name
"""The service's full name on the wire, `sixnimmt.v1.Arena` (for health checks and reflection)."""

__all__ = ["SERVICE_NAME", "pb", "rpc"]
