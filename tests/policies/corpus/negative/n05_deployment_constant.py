import os

from prefixlock import FrozenPrefix

REGION = os.environ.get("DEPLOY_REGION", "eu-west-1")
PRODUCT = os.getenv("PRODUCT_NAME", "Acme Helpdesk")


def make_prefix(tools):
    return FrozenPrefix(system=f"You support {PRODUCT} customers in {REGION}.", tools=tools)
