# Run inside Open Zaak 1.21.0 (`openzaak.sh manage shell < scripts/openzaak/orm.py`) by scripts/openzaak/check.js.
# What it does is named by OZC_ACTION:
#   reset      empty every table of zaken, documents, besluiten, catalogi and the audit trail: a check starts from nothing
#   configure  the selectielijst service (ReferentieLijstConfig's Service) at OZC_SELECTIELIJST (an api_root), and
#              Open Zaak's caches cleared (it keeps the selectielijst's answers for a day)
#   orm-zaken  OZC_AANTAL zaken of zaaktype OZC_ZAAKTYPE (a UUID) made by the ORM, as Open Zaak's own migrations and
#              imports make them: no audit trail, an identificatie of the import's own (MIGRATIE-000001 on: Open
#              Zaak's generated one scans every earlier one); each with a rol (natuurlijk_persoon) and a status; a day
#              apart from 1 May 2021 on, all in one transaction
# It prints one line `OZC {json}` with what it did.
import json
import os
from datetime import date, datetime, timedelta, timezone

action = os.environ["OZC_ACTION"]
out = {"action": action}

if action == "reset":
    from django.apps import apps
    from django.db import connection

    # every table of these apps emptied at once (a model's delete() fires signals that want what was deleted
    # before it; Open Zaak forbids a queryset's delete for some)
    tables = []
    for label in ("zaken", "besluiten", "documenten", "catalogi", "audittrails"):
        for model in apps.get_app_config(label).get_models():
            if not model._meta.proxy and model._meta.managed:
                tables.append(connection.ops.quote_name(model._meta.db_table))
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE " + ", ".join(sorted(set(tables))) + " CASCADE")
    out["tables"] = len(set(tables))

elif action == "configure":
    from django.core.cache import caches

    from openzaak.selectielijst.models import ReferentieLijstConfig

    config = ReferentieLijstConfig.get_solo()
    service = config.service
    root = os.environ["OZC_SELECTIELIJST"].rstrip("/") + "/"
    service.api_root = root
    service.oas = root + "schema/openapi.yaml"
    service.save()
    config.allowed_years = [2017, 2020]
    config.default_year = 2020
    config.save()
    for alias in caches:
        caches[alias].clear()
    out["service"] = service.api_root

elif action == "orm-zaken":
    from django.db import transaction

    from openzaak.components.catalogi.models import ZaakType
    from openzaak.components.zaken.models import NatuurlijkPersoon, Rol, Status, Zaak

    zaaktype = ZaakType.objects.get(uuid=os.environ["OZC_ZAAKTYPE"])
    roltype = zaaktype.roltype_set.order_by("pk").first()
    statustype = zaaktype.statustypen.order_by("statustypevolgnummer").first()
    made = []

    def maak(i):
        dag = date(2021, 5, 1) + timedelta(days=i)
        zaak = Zaak.objects.create(
            identificatie=f"MIGRATIE-{i + 1:06d}",
            zaaktype=zaaktype,
            bronorganisatie="000000000",
            verantwoordelijke_organisatie="000000000",
            omschrijving=f"ORM-zaak {i + 1} (zonder audit trail)",
            startdatum=dag,
            registratiedatum=dag,
        )
        rol = Rol.objects.create(
            zaak=zaak,
            roltype=roltype,
            betrokkene_type="natuurlijk_persoon",
            roltoelichting=f"ORM-rol {i + 1}",
        )
        NatuurlijkPersoon.objects.create(
            rol=rol, inp_bsn="", geslachtsnaam=f"Migratie{i + 1}", voornamen="Oud"
        )
        status = Status.objects.create(
            zaak=zaak,
            statustype=statustype,
            datum_status_gezet=datetime(dag.year, dag.month, dag.day, 9, 0, tzinfo=timezone.utc)
            + timedelta(days=1),
            statustoelichting=f"ORM-status {i + 1}",
        )
        made.append({"zaak": str(zaak.uuid), "rol": str(rol.uuid), "status": str(status.uuid)})

    with transaction.atomic():
        for i in range(int(os.environ.get("OZC_AANTAL", "3"))):
            maak(i)
    out["zaken"] = made

print("OZC " + json.dumps(out))
