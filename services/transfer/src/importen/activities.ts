import type { ImportOpdracht, ImportStatus } from '@zgw/shared';
import type { Deps } from '../common/context';
import { verifieer, zetStatus } from './afronden';
import { brengCatalogi } from './catalogi';
import { ruimOp } from './opruimen';
import { importeerPagina, startPaginas } from './pagina';

/** The activities of the registration import (workflow `importeren`): reading the source, writing here, the end. */
export function createImportActivities(deps: Deps) {
  return {
    brengCatalogi: (o: ImportOpdracht) => brengCatalogi(deps, o),
    startPaginas: (o: ImportOpdracht, soort: number) => startPaginas(deps, o, soort),
    importeerPagina: (o: ImportOpdracht, soort: number, url: string) => importeerPagina(deps, o, soort, url),
    ruimImportOp: (o: ImportOpdracht) => ruimOp(deps, o),
    verifieerImport: (o: ImportOpdracht) => verifieer(deps, o),
    zetImportStatus: (o: ImportOpdracht, status: ImportStatus, fout?: string) => zetStatus(deps, o, status, fout),
  };
}

export type ImportActivities = ReturnType<typeof createImportActivities>;
