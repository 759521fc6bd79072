// Interface strings in English and French, and the few formatting helpers the page and the embed
// share. Every string a student can see lives here, including error states.
// Strings are plain text: they are inserted with textContent, never parsed as HTML.

export const LANGS = ['en', 'fr'];

/** The interface language: an explicit choice if valid, else the browser's, else English. */
export function pickLang(explicit, browserLangs = navigator.languages || [navigator.language]) {
  const norm = (l) => String(l || '').toLowerCase().split(/[-_]/)[0];
  if (LANGS.includes(norm(explicit))) return norm(explicit);
  for (const l of browserLangs) if (LANGS.includes(norm(l))) return norm(l);
  return 'en';
}

const EN = {
  'app.tagline': 'study search that stays in your syllabus',
  'app.title': 'chsr · curriculum-gated study search',
  'lang.switch': 'Interface language',
  'skip.results': 'Skip to results',
  'search.label': 'Search your syllabus',
  'search.placeholder': 'Search past papers, mark schemes, textbooks…',
  'search.button': 'Search',
  'search.hint': 'Results update as you type. Press / to come back to the search box.',
  'search.cut': 'Your question is too long for the search, which reads at most 16 KB of text: it had {total} characters, only the first {kept} are kept.',
  'scope.legend': 'Your scope',
  'scope.summary': 'Your scope: {scope}',
  'scope.clear': 'Clear scope',
  'scope.any': 'Any',
  'scope.anySubject': 'Any subject',
  'scope.anyLevel': 'Any level',
  'scope.locked': 'Searching {scope} only (set by your course).',
  'field.subject': 'Subject',
  'field.level': 'Level',
  'field.doc_type': 'Document',
  'field.chapter': 'Chapter',
  'field.section': 'Section',
  'field.section_key': 'Section',
  'field.topic': 'Topic',
  'field.year': 'Year',
  'field.paper': 'Paper',
  'field.exam': 'Exam',
  'field.lang': 'Language',
  'field.question_number': 'Question',
  'facet.count': '{label} ({n})',
  'status.loading': 'Loading the search engine…',
  'status.ready': 'Ready: {docs} documents in {shards} subject-level collections. Pick your scope and search.',
  'status.downloading': 'Downloading {what} ({size})…',
  'status.downloadingPart': 'Downloading {what}: {done} of {size}…',
  'status.retrying': 'The download of {what} failed; trying once more…',
  'status.searching': 'Searching…',
  'status.results': '{n} results from {admissible} documents in your scope · {ms} ms',
  'status.lockedBetterOutside': '{n} results from {admissible} documents in this course’s scope · {ms} ms. These words match material outside the course’s scope better; the course keeps the search within it.',
  'status.result1': '1 result from {admissible} documents in your scope · {ms} ms',
  'status.widenedEmpty': 'Your scope holds no document: {n} results from a wider search · {ms} ms',
  'status.widenedOnly': 'No match among the {admissible} documents of your scope: {n} results from a wider search · {ms} ms',
  'status.widenedSome': '{n} results: {inside} from your scope, {outside} from a wider search · {ms} ms',
  'status.browse': 'Browsing your scope ({admissible} documents): type words to search.',
  'status.noneInScope': 'Nothing in the library matches this scope: widen it (for example, choose “Any” for chapter or year).',
  'status.noMatch': 'No document in your scope ({admissible} documents) contains these words. Try other words.',
  'status.lockedStopped': 'Nothing in this course’s scope ({admissible} documents) matches these words, and the search was not widened: the course keeps it within its scope. Try other words.',
  'status.cleared': 'Type words to search your scope.',
  'status.weakNone': 'Nothing in your scope ({admissible} documents) matches this well, and nothing outside it does either. Try other words.',
  'status.weakWidened': 'Nothing in your scope matches this well: {n} results from outside it, labelled · {ms} ms',
  'status.weakSome': 'Nothing in your scope matches this well: {outside} results from outside it (labelled), then {inside} partial matches from your scope · {ms} ms',
  'status.weakOnly': 'Nothing in your scope matches this well: {n} partial matches below · {ms} ms',
  'status.weakLocked': 'Nothing in this course’s scope matches this well: {n} partial matches below · {ms} ms. These words match material outside the course’s scope better; the course keeps the search within it.',
  'widened.banner': 'Little or nothing in your exact scope matches this, so the search was widened ({steps}). Results from outside your scope are labelled.',
  'widened.dropped': 'dropped {fields}',
  'leak.cross_topic': 'From another part of the course ({where}): outside your scope',
  'leak.cross_level': 'From {level}: outside your scope',
  'leak.fallback': 'From {subject} · {level}: outside your scope (last-resort search)',
  'leak.ungated': 'From {subject} · {level}: outside your scope (unfiltered search)',
  'leak.chapter': 'chapter {chapter}',
  'card.chapter': 'Chapter {chapter}',
  'card.question': 'Q{n}',
  'card.showSection': 'Show the whole section',
  'card.hideSection': 'Hide the section',
  'card.sectionTitle': 'The whole passage and the rest of its section',
  'card.sectionMore': '{n} more passages from this section (passages already in your results are not repeated).',
  'card.sectionNone': 'No other passage of this section beyond those already in your results.',
  'card.sectionLoading': 'Loading the section…',
  'card.newTab': '(opens in a new tab)',
  'why.result': 'Why this result',
  'why.rank': 'Rank',
  'why.bm25': 'Keyword rank (BM25)',
  'why.dense': 'Meaning rank (vector search)',
  'why.notRanked': 'not in this list',
  'why.noDense': 'not used: {reason}',
  'why.fused': 'Fused score (reciprocal rank fusion)',
  'why.adjust': 'Rerank adjustments',
  'why.noAdjust': 'none',
  'why.final': 'Final score',
  'why.scope': 'Scope',
  'why.inScope': 'inside your scope',
  'why.id': 'Document id',
  'query.why': 'How this search worked',
  'query.variant': 'Pipeline',
  'query.variantValue': 'variant {variant}, scope applied: {gating}',
  'gating.gated': 'before ranking (gate)',
  'gating.ungated': 'not applied',
  'gating.post_filtered': 'after ranking (filter)',
  'query.scope': 'Scope applied',
  'query.scopeNone': 'the whole library',
  'query.shards': 'Collections searched',
  'query.admissible': 'Documents admitted by the scope',
  'query.admissibleValue': '{admissible} of {pool}',
  'query.terms': 'Search terms',
  'query.expansion': 'Added from the EN/FR glossary',
  'query.hints': 'Read from your words and applied',
  'query.conflicts': 'Read from your words but overruled by your scope',
  'query.dense': 'Vector search plan',
  'plan.exact': 'exact scan of the admitted documents',
  'plan.graph': 'graph search (HNSW)',
  'plan.graph_then_exact': 'graph search, then an exact scan',
  'query.denseNone': 'not run ({reason})',
  'query.denseNoModel': 'no embedding model loaded',
  'query.denseOov': 'none of the words occurs in these documents',
  'query.denseOff': 'keywords only: the meaning search is not switched on here',
  'query.densePending': 'pending: waiting for {what}; the results will be updated once downloaded',
  'query.update': 'Updated',
  'query.upgradedValue': 'first shown with keywords only while waiting for {what}, then searched again',
  'query.candidates': 'Candidates before fusion',
  'query.candidatesValue': '{lex} by keywords, {dense} by meaning',
  'query.duplicates': 'Near-duplicates removed',
  'query.relax': 'Scope widening',
  'query.evidence': 'Evidence in your scope',
  'evidence.weak': 'weak: the best result in your scope holds {coverage} % of the query’s weight ({matched} of {terms} words)',
  'evidence.good': 'good: the best result in your scope holds {coverage} % of the query’s weight ({matched} of {terms} words)',
  'evidence.dropped': '{n} results of your scope matching no query word, or only a common one, are not shown.',
  'relax.zero_results': 'nothing matched in the scope, so widening was tried',
  'relax.off_subject': 'results came from another subject, so widening was tried',
  'relax.few_without_subject': 'too few results without a subject, so widening was tried',
  'relax.enough_in_subject': 'not needed: enough results in your scope',
  'relax.enough': 'not needed: enough results',
  'relax.none': 'not part of this pipeline variant',
  'relax.strong_in_scope': 'not needed: your scope matches this well',
  'relax.no_match': 'nothing matched anywhere it could look',
  'relax.stronger_outside_topic': 'other parts of the course match much better, so their results come first',
  'relax.comparable_outside_topic': 'other parts of the course match about as well, so their results are mixed in',
  'relax.stronger_other_level': 'another level matches much better, so widening was tried',
  'relax.no_match_in_level': 'nothing at your level matches, so widening was tried',
  'relax.stepRan': '{step}: dropped {fields}, searched {scope}: {added} new results',
  'relax.stepSkipped': '{step}: skipped ({note})',
  'relax.pending': 'Also needed: {files}',
  'query.timings': 'Time',
  'query.timingsValue': '{total} ms (gate {gate}, keywords {lex}, fusion and rerank {fusion})',
  'query.notes': 'Engine notes',
  'query.browse': 'No search words: browsing the scope in reading order',
  'copy.button': 'Copy as context for an assistant',
  'copy.done': 'Copied {n} documents as context. Paste them into your assistant.',
  'copy.manual': 'Your browser did not allow copying: select the text below and copy it (Ctrl+C).',
  'copy.label': 'Context for an assistant',
  'copy.close': 'Close',
  'offline.title': 'Offline',
  'offline.summary': '{n} of {total} collections available offline',
  'offline.available': 'Available offline',
  'offline.notYet': 'Not on this device yet',
  'offline.unsupported': 'This browser cannot keep the site for offline use.',
  'offline.save': 'Save for offline',
  'offline.saving': 'Saving…',
  'offline.current': '{what}: available offline',
  'offline.currentNot': '{what}: needs the network until you search it once',
  'update.ready': 'A new version of the site is ready.',
  'update.reload': 'Reload',
  'error.title': 'Something went wrong',
  'error.retry': 'Try again',
  'error.engine': 'The search engine could not start in this browser ({detail}). Reload the page; a recent Chrome, Firefox, Edge or Safari is needed.',
  'error.manifest': 'The library index could not be read ({detail}). The site may be half-updated: reload the page in a minute.',
  'error.network': 'Could not download {what}, even after a second try. Check your connection, then try again.',
  'error.http': 'The server could not provide {what} (HTTP {status}), even after a second try. Try again later; if it persists, tell the site’s maintainer.',
  'error.interrupted': 'The download of {what} was interrupted twice ({received} of {expected} received). Try again on a steadier connection.',
  'error.integrity': 'The data for {what} failed its integrity check twice: it may be an out-of-date or damaged copy. Reload the page; if it persists, the site needs rebuilding.',
  'error.offline': 'You are offline and {what} has not been saved on this device yet. Connect once and search it: it will then work offline.',
  'error.scope': 'This link asks for {field} “{value}”, which this library does not have (it has: {valid}). It was left out of your scope.',
  'error.scopeLocked': 'This search is set to {field} “{value}”, which the library does not have (it has: {valid}). Ask the course author to correct it.',
  'error.search': 'The search failed: {detail}',
  'error.libraryIndex': 'the library index',
  'model.what': 'the meaning-search model',
  'terms.what': 'the word lists of the other levels',
  'vectors.of': '{what} (meaning-search data)',
  'text.of': '{what} (text of the results)',
  'postings.of': '{what} (index of your words)',
  'model.failed': 'Results use keyword search only: {reason}',
  'embed.label': 'Course search',
  'embed.missingManifest': 'This search box has no manifest attribute: ask the course author to add one.',
  'foot.text': 'Runs entirely in your browser. Corpus: OpenCERB (OpenStax, CC BY 4.0; G. Lassus NSI, CC BY-SA).',
  'foot.licences': 'Licences and attribution',
  'results.label': 'Results',
  'size.kb': '{n} kB',
  'size.mb': '{n} MB',
};

const FR = {
  'app.tagline': 'la recherche de révision qui reste dans votre programme',
  'app.title': 'chsr · recherche de révision guidée par le programme',
  'lang.switch': 'Langue de l’interface',
  'skip.results': 'Aller aux résultats',
  'search.label': 'Chercher dans votre programme',
  'search.placeholder': 'Annales, corrigés, manuels…',
  'search.button': 'Chercher',
  'search.hint': 'Les résultats s’affichent pendant la saisie. Appuyez sur / pour revenir à la recherche.',
  'search.cut': 'Votre question est trop longue pour la recherche, qui lit au plus 16 Ko de texte : elle avait {total} caractères, seuls les {kept} premiers sont gardés.',
  'scope.legend': 'Votre programme',
  'scope.summary': 'Votre programme : {scope}',
  'scope.clear': 'Tout effacer',
  'scope.any': 'Tous',
  'scope.anySubject': 'Toutes les matières',
  'scope.anyLevel': 'Tous les niveaux',
  'scope.locked': 'Recherche limitée à {scope} (fixé par votre cours).',
  'field.subject': 'Matière',
  'field.level': 'Niveau',
  'field.doc_type': 'Document',
  'field.chapter': 'Chapitre',
  'field.section': 'Section',
  'field.section_key': 'Section',
  'field.topic': 'Thème',
  'field.year': 'Année',
  'field.paper': 'Sujet',
  'field.exam': 'Examen',
  'field.lang': 'Langue',
  'field.question_number': 'Question',
  'facet.count': '{label} ({n})',
  'status.loading': 'Chargement du moteur de recherche…',
  'status.ready': 'Prêt : {docs} documents dans {shards} collections (matière et niveau). Choisissez votre programme et cherchez.',
  'status.downloading': 'Téléchargement de {what} ({size})…',
  'status.downloadingPart': 'Téléchargement de {what} : {done} sur {size}…',
  'status.retrying': 'Le téléchargement de {what} a échoué ; nouvel essai…',
  'status.searching': 'Recherche…',
  'status.results': '{n} résultats parmi {admissible} documents de votre programme · {ms} ms',
  'status.lockedBetterOutside': '{n} résultats parmi {admissible} documents du programme de ce cours · {ms} ms. Ces mots correspondent mieux à des documents hors du programme du cours ; le cours limite la recherche à son programme.',
  'status.result1': '1 résultat parmi {admissible} documents de votre programme · {ms} ms',
  'status.widenedEmpty': 'Votre programme ne contient aucun document : {n} résultats d’une recherche élargie · {ms} ms',
  'status.widenedOnly': 'Aucune correspondance parmi les {admissible} documents de votre programme : {n} résultats d’une recherche élargie · {ms} ms',
  'status.widenedSome': '{n} résultats : {inside} de votre programme, {outside} d’une recherche élargie · {ms} ms',
  'status.browse': 'Parcours de votre programme ({admissible} documents) : tapez des mots pour chercher.',
  'status.noneInScope': 'Rien dans la bibliothèque ne correspond à ce programme : élargissez-le (par exemple « Tous » pour le chapitre ou l’année).',
  'status.noMatch': 'Aucun document de votre programme ({admissible} documents) ne contient ces mots. Essayez d’autres mots.',
  'status.lockedStopped': 'Rien dans le programme de ce cours ({admissible} documents) ne correspond à ces mots, et la recherche n’a pas été élargie : le cours la limite à son programme. Essayez d’autres mots.',
  'status.cleared': 'Tapez des mots pour chercher dans votre programme.',
  'status.weakNone': 'Rien dans votre programme ({admissible} documents) ne correspond bien à cette question, ni en dehors. Essayez d’autres mots.',
  'status.weakWidened': 'Rien dans votre programme ne correspond bien à cette question : {n} résultats hors programme, signalés · {ms} ms',
  'status.weakSome': 'Rien dans votre programme ne correspond bien à cette question : {outside} résultats hors programme (signalés), puis {inside} correspondances partielles de votre programme · {ms} ms',
  'status.weakOnly': 'Rien dans votre programme ne correspond bien à cette question : {n} correspondances partielles ci-dessous · {ms} ms',
  'status.weakLocked': 'Rien dans le programme de ce cours ne correspond bien à cette question : {n} correspondances partielles ci-dessous · {ms} ms. Ces mots correspondent mieux à des documents hors du programme du cours ; le cours limite la recherche à son programme.',
  'widened.banner': 'Votre programme exact ne correspond pas, ou peu, à cette question : la recherche a été élargie ({steps}). Les résultats hors programme sont signalés.',
  'widened.dropped': '{fields} retiré(s)',
  'leak.cross_topic': 'D’une autre partie du cours ({where}) : hors de votre programme',
  'leak.cross_level': 'Du niveau {level} : hors de votre programme',
  'leak.fallback': 'De {subject} · {level} : hors de votre programme (recherche de dernier recours)',
  'leak.ungated': 'De {subject} · {level} : hors de votre programme (recherche sans filtre)',
  'leak.chapter': 'chapitre {chapter}',
  'card.chapter': 'Chapitre {chapter}',
  'card.question': 'Q{n}',
  'card.showSection': 'Afficher toute la section',
  'card.hideSection': 'Masquer la section',
  'card.sectionTitle': 'Le passage complet et la suite de sa section',
  'card.sectionMore': '{n} autres passages de cette section (ceux déjà dans vos résultats ne sont pas répétés).',
  'card.sectionNone': 'Aucun autre passage de cette section en dehors de ceux déjà dans vos résultats.',
  'card.sectionLoading': 'Chargement de la section…',
  'card.newTab': '(s’ouvre dans un nouvel onglet)',
  'why.result': 'Pourquoi ce résultat',
  'why.rank': 'Rang',
  'why.bm25': 'Rang par mots-clés (BM25)',
  'why.dense': 'Rang par le sens (recherche vectorielle)',
  'why.notRanked': 'absent de cette liste',
  'why.noDense': 'non utilisée : {reason}',
  'why.fused': 'Score fusionné (fusion des rangs réciproques)',
  'why.adjust': 'Ajustements du reclassement',
  'why.noAdjust': 'aucun',
  'why.final': 'Score final',
  'why.scope': 'Programme',
  'why.inScope': 'dans votre programme',
  'why.id': 'Identifiant du document',
  'query.why': 'Comment cette recherche a fonctionné',
  'query.variant': 'Chaîne de traitement',
  'query.variantValue': 'variante {variant}, programme appliqué : {gating}',
  'gating.gated': 'avant le classement (filtre d’entrée)',
  'gating.ungated': 'non appliqué',
  'gating.post_filtered': 'après le classement (filtre de sortie)',
  'query.scope': 'Programme appliqué',
  'query.scopeNone': 'toute la bibliothèque',
  'query.shards': 'Collections parcourues',
  'query.admissible': 'Documents admis par le programme',
  'query.admissibleValue': '{admissible} sur {pool}',
  'query.terms': 'Termes cherchés',
  'query.expansion': 'Ajoutés par le glossaire FR/EN',
  'query.hints': 'Lus dans vos mots et appliqués',
  'query.conflicts': 'Lus dans vos mots mais écartés par votre programme',
  'query.dense': 'Plan de la recherche vectorielle',
  'plan.exact': 'parcours exact des documents admis',
  'plan.graph': 'recherche dans le graphe (HNSW)',
  'plan.graph_then_exact': 'recherche dans le graphe, puis parcours exact',
  'query.denseNone': 'non effectuée ({reason})',
  'query.denseNoModel': 'aucun modèle de plongement chargé',
  'query.denseOov': 'aucun des mots n’apparaît dans ces documents',
  'query.denseOff': 'mots-clés seulement : la recherche par le sens n’est pas activée ici',
  'query.densePending': 'en attente : {what} — les résultats seront mis à jour après le téléchargement',
  'query.update': 'Mise à jour',
  'query.upgradedValue': 'affichés d’abord par mots-clés seulement, en attendant {what}, puis recherche refaite',
  'query.candidates': 'Candidats avant fusion',
  'query.candidatesValue': '{lex} par mots-clés, {dense} par le sens',
  'query.duplicates': 'Quasi-doublons retirés',
  'query.relax': 'Élargissement du programme',
  'query.evidence': 'Correspondance dans votre programme',
  'evidence.weak': 'faible : le meilleur résultat de votre programme porte {coverage} % du poids de la question ({matched} mots sur {terms})',
  'evidence.good': 'bonne : le meilleur résultat de votre programme porte {coverage} % du poids de la question ({matched} mots sur {terms})',
  'evidence.dropped': '{n} résultats de votre programme ne contenant aucun mot de la question, ou un seul mot courant, ne sont pas affichés.',
  'relax.zero_results': 'rien ne correspondait dans le programme : élargissement tenté',
  'relax.off_subject': 'des résultats venaient d’une autre matière : élargissement tenté',
  'relax.few_without_subject': 'trop peu de résultats sans matière : élargissement tenté',
  'relax.enough_in_subject': 'inutile : assez de résultats dans votre programme',
  'relax.enough': 'inutile : assez de résultats',
  'relax.none': 'ne fait pas partie de cette variante',
  'relax.strong_in_scope': 'inutile : votre programme correspond bien',
  'relax.no_match': 'rien ne correspondait, nulle part où chercher',
  'relax.stronger_outside_topic': 'd’autres parties du cours correspondent bien mieux : leurs résultats passent devant',
  'relax.comparable_outside_topic': 'd’autres parties du cours correspondent presque aussi bien : leurs résultats sont intercalés',
  'relax.stronger_other_level': 'un autre niveau correspond bien mieux : élargissement tenté',
  'relax.no_match_in_level': 'rien ne correspond à votre niveau : élargissement tenté',
  'relax.stepRan': '{step} : {fields} retiré(s), recherche dans {scope} : {added} nouveaux résultats',
  'relax.stepSkipped': '{step} : non effectué ({note})',
  'relax.pending': 'Également nécessaire : {files}',
  'query.timings': 'Durée',
  'query.timingsValue': '{total} ms (filtre {gate}, mots-clés {lex}, fusion et reclassement {fusion})',
  'query.notes': 'Notes du moteur',
  'query.browse': 'Aucun mot à chercher : parcours du programme dans l’ordre de lecture',
  'copy.button': 'Copier comme contexte pour un assistant',
  'copy.done': '{n} documents copiés comme contexte. Collez-les dans votre assistant.',
  'copy.manual': 'Votre navigateur n’a pas autorisé la copie : sélectionnez le texte ci-dessous et copiez-le (Ctrl+C).',
  'copy.label': 'Contexte pour un assistant',
  'copy.close': 'Fermer',
  'offline.title': 'Hors ligne',
  'offline.summary': '{n} collections sur {total} disponibles hors ligne',
  'offline.available': 'Disponible hors ligne',
  'offline.notYet': 'Pas encore sur cet appareil',
  'offline.unsupported': 'Ce navigateur ne peut pas garder le site pour un usage hors ligne.',
  'offline.save': 'Garder hors ligne',
  'offline.saving': 'Enregistrement…',
  'offline.current': '{what} : disponible hors ligne',
  'offline.currentNot': '{what} : nécessite le réseau jusqu’à votre première recherche',
  'update.ready': 'Une nouvelle version du site est prête.',
  'update.reload': 'Recharger',
  'error.title': 'Un problème est survenu',
  'error.retry': 'Réessayer',
  'error.engine': 'Le moteur de recherche n’a pas pu démarrer dans ce navigateur ({detail}). Rechargez la page ; il faut un Chrome, Firefox, Edge ou Safari récent.',
  'error.manifest': 'L’index de la bibliothèque est illisible ({detail}). Le site est peut-être en cours de mise à jour : rechargez la page dans une minute.',
  'error.network': 'Impossible de télécharger {what}, même après un second essai. Vérifiez votre connexion puis réessayez.',
  'error.http': 'Le serveur n’a pas pu fournir {what} (HTTP {status}), même après un second essai. Réessayez plus tard ; si cela persiste, prévenez le responsable du site.',
  'error.interrupted': 'Le téléchargement de {what} a été interrompu deux fois ({received} reçus sur {expected}). Réessayez avec une connexion plus stable.',
  'error.integrity': 'Les données de {what} ont échoué deux fois au contrôle d’intégrité : la copie est peut-être périmée ou abîmée. Rechargez la page ; si cela persiste, le site doit être reconstruit.',
  'error.offline': 'Vous êtes hors ligne et {what} n’a pas encore été enregistré sur cet appareil. Connectez-vous une fois et cherchez-y : cela fonctionnera ensuite hors ligne.',
  'error.scope': 'Ce lien demande {field} « {value} », que cette bibliothèque n’a pas (elle a : {valid}). Ce critère a été retiré de votre programme.',
  'error.scopeLocked': 'Cette recherche est réglée sur {field} « {value} », que la bibliothèque n’a pas (elle a : {valid}). Demandez à l’auteur du cours de la corriger.',
  'error.search': 'La recherche a échoué : {detail}',
  'error.libraryIndex': 'l’index de la bibliothèque',
  'model.what': 'le modèle de recherche par le sens',
  'terms.what': 'les listes de mots des autres niveaux',
  'vectors.of': '{what} (données de recherche par le sens)',
  'text.of': '{what} (texte des résultats)',
  'postings.of': '{what} (index de vos mots)',
  'model.failed': 'Résultats par mots-clés seulement : {reason}',
  'embed.label': 'Recherche du cours',
  'embed.missingManifest': 'Cette zone de recherche n’a pas d’attribut manifest : demandez à l’auteur du cours d’en ajouter un.',
  'foot.text': 'Fonctionne entièrement dans votre navigateur. Corpus : OpenCERB (OpenStax, CC BY 4.0 ; G. Lassus NSI, CC BY-SA).',
  'foot.licences': 'Licences et attributions',
  'results.label': 'Résultats',
  'size.kb': '{n} ko',
  'size.mb': '{n} Mo',
};

// Display names of corpus values; anything not listed is shown as stored.
const VALUES = {
  en: {
    subject: { physics: 'Physics', chemistry: 'Chemistry', 'informatique (NSI)': 'Computer science (NSI)' },
    level: { college: 'College', high_school: 'High school', premiere: 'Première', terminale: 'Terminale' },
    doc_type: {
      textbook_section: 'Textbook', exercise: 'Exercise', solution: 'Answer / mark scheme',
      worked_example: 'Worked example', summary: 'Summary', glossary: 'Glossary', table: 'Table',
      key_equations: 'Key equations', past_paper_question: 'Past paper question',
    },
    lang: { en: 'English', fr: 'French' },
  },
  fr: {
    subject: { physics: 'Physique', chemistry: 'Chimie', 'informatique (NSI)': 'Informatique (NSI)' },
    level: { college: 'Supérieur', high_school: 'Lycée', premiere: 'Première', terminale: 'Terminale' },
    doc_type: {
      textbook_section: 'Cours', exercise: 'Exercice', solution: 'Corrigé',
      worked_example: 'Exemple résolu', summary: 'Résumé', glossary: 'Glossaire', table: 'Tableau',
      key_equations: 'Équations clés', past_paper_question: 'Question d’annale',
    },
    lang: { en: 'Anglais', fr: 'Français' },
  },
};

// Rerank reasons come from the engine in English; known ones are translated.
const REASONS_FR = [
  [/^same section as the top result$/, () => 'même section que le premier résultat'],
  [/^best glossary entry for a definition request$/, () => 'meilleure entrée du glossaire pour une demande de définition'],
  [/^document type (.+) asked for by the query$/, (m, v) => `type de document ${v('doc_type', m[1])} demandé dans la requête`],
  [/^label (.+) named in the query$/, (m) => `étiquette ${m[1]} nommée dans la requête`],
  [/^(\w+) (.+) named in the query$/, (m) => `${m[1]} ${m[2]} nommé(e) dans la requête`],
];

// Numbers as `Intl.NumberFormat` writes them for the two interface languages (en-GB: `12,345.6`;
// fr-FR: `12 345,6` with a narrow no-break space), written by hand: the first Intl formatter a
// page makes loads the locale data, 11–23 ms measured in Chromium, and the pickers' counts are
// on the way to the first result. `tests/browser/format.test.mjs` holds it to Intl's output.
const SEPARATORS = { en: [',', '.'], fr: ['\u202f', ','] };

/**
 * `x` with at least `min` and at most `max` fraction digits, digits grouped by three, in the
 * separators of `lang` ('en' or 'fr'). As Intl, it rounds the shortest decimal that reads back
 * as `x` (what `String(x)` writes: 0.15, not 0.1499…), half away from zero.
 */
export function formatNumber(x, lang, { min = 0, max = 0 } = {}) {
  if (!Number.isFinite(x)) return String(x);
  const [group, decimal] = SEPARATORS[lang] || SEPARATORS.en;
  // The shortest round-trip digits and where the decimal point falls among them.
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)));
  let digits = m[1] + (m[2] || '');
  let point = m[1].length + (m[3] ? Number(m[3]) : 0);
  if (point <= 0) { digits = '0'.repeat(1 - point) + digits; point = 1; }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  // Keep `max` fraction digits, rounding half up on the decimal digits.
  let kept = digits.slice(0, point + max);
  if (digits.length > point + max && digits[point + max] >= '5') {
    const d = kept.split('');
    let i = d.length - 1;
    while (i >= 0 && d[i] === '9') d[i--] = '0';
    if (i < 0) { d.unshift('1'); point += 1; } else d[i] = String(Number(d[i]) + 1);
    kept = d.join('');
  }
  const int = kept.slice(0, point).replace(/^0+(?=\d)/, '');
  let frac = kept.slice(point).padEnd(min, '0');
  while (frac.length > min && frac.endsWith('0')) frac = frac.slice(0, -1);
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  return `${sign}${int.replace(/\B(?=(\d{3})+(?!\d))/g, group)}${frac ? decimal + frac : ''}`;
}

/** A translator for one language: `t(key, params)`, plus value labels and number formats. */
export function translator(lang) {
  const dict = lang === 'fr' ? FR : EN;
  const t = (key, params = {}) => {
    const s = dict[key] ?? EN[key] ?? key;
    return s.replace(/\{(\w+)\}/g, (_, k) => (k in params ? String(params[k]) : `{${k}}`));
  };
  t.lang = lang;
  t.num = (n) => formatNumber(n, lang, { max: 3 });
  t.value = (field, v) => {
    if (v === undefined || v === null || v === '') return '';
    return (VALUES[lang] && VALUES[lang][field] && VALUES[lang][field][v]) || String(v);
  };
  t.field = (f) => t(`field.${f}`);
  t.size = (bytes) => (bytes >= 1e6
    ? t('size.mb', { n: formatNumber(bytes / 1e6, lang, { max: 1 }) })
    : t('size.kb', { n: t.num(Math.max(1, Math.round(bytes / 1e3))) }));
  t.ms = (x) => formatNumber(x, lang, { min: 1, max: 1 });
  t.score = (x) => formatNumber(x, lang, { min: 4, max: 4 });
  t.reason = (r) => {
    if (lang !== 'fr') return r;
    for (const [re, f] of REASONS_FR) {
      const m = re.exec(r);
      if (m) return f(m, t.value);
    }
    return r;
  };
  t.list = (items) => items.join(lang === 'fr' ? ', ' : ', ');
  return t;
}
