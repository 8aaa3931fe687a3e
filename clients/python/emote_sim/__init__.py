"""emote-sim's Python client (docs/guide/bots.md): a blocking Client and, in emote_sim.aio, the
same shape for asyncio. Standard library only."""

from ._common import (DEFAULT_ADDRESS, ERROR_CODES, ConnectionClosed, EmoteSimError,
                      entry_recipients, facing_partner, packet_id, parse_address, read_varint,
                      viewer_packets)
from .client import Client, Player

__all__ = ["Client", "Player", "EmoteSimError", "ConnectionClosed", "ERROR_CODES",
           "DEFAULT_ADDRESS", "parse_address", "viewer_packets", "entry_recipients", "packet_id",
           "read_varint", "facing_partner"]
__version__ = "0.1.0"
